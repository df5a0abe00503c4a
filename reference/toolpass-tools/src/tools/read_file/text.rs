//! The text read path of Qwen Code's `read_file`: which lines are selected
//! (`readTextRange`: `sliceDecodedContent` for files under 10 MiB,
//! `readLargeUtf8Range` streaming above), and how they are shown
//! (`processSingleFileContent`'s text case: trailing white space trimmed,
//! one line cut at the character budget with `... [truncated]`).
//!
//! Lengths are JavaScript's: characters are UTF-16 code units, the byte
//! budget is UTF-8 bytes.

use std::io::{self, Read};

use toolpass_core::fold::trim_end_js;
use toolpass_core::text::{Bom, detect_bom};

use crate::tools::node::{utf16_len, utf16_prefix};

/// Qwen's `TEXT_RANGE_FAST_PATH_MAX_SIZE`: files this large are streamed.
pub(super) const STREAMING_MIN_SIZE: u64 = 10 * 1024 * 1024;
/// Qwen's `DEFAULT_RANGE_READ_BYTES`.
const DEFAULT_RANGE_READ_BYTES: usize = 25_000;
/// The marker after a line cut at the budget.
const TRUNCATED_MARKER: &str = "... [truncated]";
/// How much the streaming reader reads at a time (Node's `highWaterMark`).
const CHUNK_LEN: usize = 512 * 1024;
/// `detectFileEncoding`'s sample.
const ENCODING_SAMPLE_LEN: usize = 8192;

/// The budgets of one read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    /// The 0-based first line.
    pub offset: usize,
    /// At most this many lines (`limit`, else the session's line limit);
    /// `None` for no limit.
    pub lines: Option<usize>,
    /// Characters (UTF-16 units) of output; `None` for no limit.
    pub chars: Option<usize>,
}

impl Budget {
    /// Qwen's `getRangeReadByteLimit`: four bytes per character of the
    /// character budget, at least 25 000.
    fn bytes(self) -> usize {
        match self.chars {
            None => usize::MAX,
            Some(chars) => DEFAULT_RANGE_READ_BYTES.max(chars.saturating_mul(4)),
        }
    }

    fn end_line(self) -> usize {
        self.lines
            .map_or(usize::MAX, |l| self.offset.saturating_add(l))
    }
}

/// The selected lines before formatting: `readTextRange`'s result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Range {
    pub content: String,
    pub original_line_count: usize,
    pub exact: bool,
    pub truncated_by_bytes: bool,
}

/// What the model is shown of a text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shown {
    /// The lines, without the "Showing lines" header.
    pub content: String,
    /// Qwen's `returnDisplay` (empty for a complete read).
    pub display: String,
    /// Whether the model did not see all of the file.
    pub is_truncated: bool,
    /// The header, when truncated: "Showing lines a-b of n total lines."
    pub header: Option<String>,
}

/// `sliceDecodedContent`: lines `offset..offset+limit` of decoded text, cut
/// to the byte budget.
pub(super) fn slice_decoded(text: &str, budget: Budget) -> Range {
    let lines: Vec<&str> = text.split('\n').collect();
    let count = lines.len();
    let start = budget.offset.min(count);
    let end = budget.end_line().min(count);
    let selected = lines[start..end.max(start)].join("\n");
    let (content, truncated_by_bytes) = truncate_utf8(&selected, budget.bytes());
    Range {
        content: content.to_owned(),
        original_line_count: count,
        exact: true,
        truncated_by_bytes,
    }
}

/// Why a large file could not be streamed (Qwen's `LargeNonUtf8TextError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StreamError(pub String);

/// `readLargeUtf8Range`: streams a UTF-8 file, stopping after the selected
/// lines; the line count is then a lower bound.
///
/// # Errors
/// A [`StreamError`] for a file that is not UTF-8, or an IO error.
pub(super) fn read_large_utf8(
    mut reader: impl Read,
    budget: Budget,
) -> io::Result<Result<Range, StreamError>> {
    let mut stream = LineStream::new(budget);
    let mut buf = vec![0u8; CHUNK_LEN];
    let mut carry: Vec<u8> = Vec::new();
    let mut first = true;
    loop {
        let n = read_full(&mut reader, &mut buf)?;
        if n == 0 {
            break;
        }
        let mut data = std::mem::take(&mut carry);
        data.extend_from_slice(&buf[..n]);
        if first {
            first = false;
            if let Some(error) = non_utf8_encoding(&data[..data.len().min(ENCODING_SAMPLE_LEN)]) {
                return Ok(Err(error));
            }
        }
        let valid = match std::str::from_utf8(&data) {
            Ok(s) => s,
            Err(e) if e.error_len().is_none() => {
                carry = data[e.valid_up_to()..].to_vec();
                // Safe: everything before valid_up_to is valid UTF-8.
                std::str::from_utf8(&data[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(_) => return Ok(Err(invalid_utf8())),
        };
        if stream.feed(valid) {
            return Ok(Ok(stream.finish(false)));
        }
    }
    if !carry.is_empty() {
        return Ok(Err(invalid_utf8()));
    }
    Ok(Ok(stream.finish(true)))
}

/// Reads until `buf` is full or the reader is exhausted.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn invalid_utf8() -> StreamError {
    StreamError(
        "Large text file contains invalid UTF-8 byte sequence beyond the initial encoding sample. \
         Convert or extract a smaller UTF-8 slice and read that instead."
            .to_owned(),
    )
}

/// `detectFileEncoding` on the first 8 KiB: a UTF-16/32 mark or bytes that
/// are not UTF-8 end the stream before it starts.
fn non_utf8_encoding(sample: &[u8]) -> Option<StreamError> {
    let name = match detect_bom(sample) {
        Err(_) if sample.starts_with(&[0xFF, 0xFE]) => "utf-32le",
        Err(_) => "utf-32be",
        Ok(Some(Bom::Utf16Le)) => "utf-16le",
        Ok(Some(Bom::Utf16Be)) => "utf-16be",
        Ok(Some(Bom::Utf8)) => return None,
        Ok(None) => match std::str::from_utf8(sample) {
            Ok(_) => return None,
            // A sample cut inside a character is still UTF-8.
            Err(e) if e.error_len().is_none() => return None,
            Err(_) => match toolpass_core::text::decode(sample) {
                Ok(decoded) => decoded.encoding.name(),
                Err(_) => return Some(invalid_utf8()),
            },
        },
    };
    Some(StreamError(format!(
        "Large non-UTF-8 text files are not supported for streaming reads (detected {name}). \
         Convert or extract a smaller UTF-8 slice and read that instead."
    )))
}

/// The line walk of `readLargeUtf8Range` over decoded chunks.
struct LineStream {
    budget: Budget,
    end_line: usize,
    max_bytes: usize,
    current_line: usize,
    output: String,
    truncated_by_bytes: bool,
    started: bool,
}

impl LineStream {
    fn new(budget: Budget) -> Self {
        LineStream {
            budget,
            end_line: budget.end_line(),
            max_bytes: budget.bytes(),
            current_line: 0,
            output: String::new(),
            truncated_by_bytes: false,
            started: false,
        }
    }

    fn selected(&self) -> bool {
        self.current_line >= self.budget.offset && self.current_line < self.end_line
    }

    fn append(&mut self, fragment: &str) {
        if fragment.is_empty() || self.truncated_by_bytes {
            return;
        }
        let available = self.max_bytes.saturating_sub(self.output.len());
        if available == 0 {
            self.truncated_by_bytes = true;
            return;
        }
        let (kept, truncated) = truncate_utf8(fragment, available);
        self.output.push_str(kept);
        self.truncated_by_bytes |= truncated;
    }

    /// Feeds decoded text; returns true when the walk stopped early.
    fn feed(&mut self, mut chunk: &str) -> bool {
        if !self.started {
            self.started = true;
            chunk = chunk.strip_prefix('\u{FEFF}').unwrap_or(chunk);
        }
        while let Some(newline) = chunk.find('\n') {
            if self.selected() {
                self.append(&chunk[..newline]);
                if self.current_line + 1 < self.end_line {
                    self.append("\n");
                }
            }
            self.current_line += 1;
            chunk = &chunk[newline + 1..];
            if self.current_line >= self.end_line || self.truncated_by_bytes {
                return true;
            }
        }
        if self.selected() {
            self.append(chunk);
        }
        self.current_line >= self.end_line || self.truncated_by_bytes
    }

    fn finish(self, exact: bool) -> Range {
        Range {
            content: self.output,
            original_line_count: self.current_line + 1,
            exact,
            truncated_by_bytes: self.truncated_by_bytes,
        }
    }
}

/// Qwen's `truncateUtf8`: at most `max` bytes, cut on a character boundary.
fn truncate_utf8(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

/// The text case of `processSingleFileContent`: trailing white space
/// trimmed from every line, the line that crosses the character budget cut
/// and marked, and the truncation header and display computed.
pub(super) fn show(range: &Range, budget: Budget, shown_path: &str) -> Shown {
    let selected: Vec<&str> = range.content.split('\n').map(trim_end_js).collect();
    let start_line = budget.offset;
    let mut lines_included = 0;
    let mut length_truncated = false;
    let mut content = match budget.chars {
        Some(limit) => {
            let mut formatted: Vec<String> = Vec::new();
            let mut current = 0usize;
            for line in &selected {
                let sep = usize::from(lines_included > 0);
                lines_included += 1;
                let projected = current + utf16_len(line) + sep;
                if projected <= limit {
                    formatted.push((*line).to_owned());
                    current = projected;
                } else {
                    let remaining = limit.saturating_sub(current + sep).max(10);
                    formatted.push(format!(
                        "{}{TRUNCATED_MARKER}",
                        utf16_prefix(line, remaining)
                    ));
                    length_truncated = true;
                    break;
                }
            }
            formatted.join("\n")
        }
        None => {
            lines_included = selected.len();
            selected.join("\n")
        }
    };
    if range.truncated_by_bytes {
        if !content.ends_with(TRUNCATED_MARKER) {
            let prefix = match budget.chars {
                Some(limit) => utf16_prefix(
                    &content,
                    limit.saturating_sub(utf16_len(TRUNCATED_MARKER) + 1),
                ),
                None => &content,
            };
            let separator = if prefix.is_empty() || prefix.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            content = format!("{prefix}{separator}{TRUNCATED_MARKER}");
        }
        length_truncated = true;
    }
    let end_line = start_line + lines_included;
    let range_truncated = start_line > 0 || !range.exact || end_line < range.original_line_count;
    let is_truncated = range_truncated || length_truncated;
    let total = if range.exact {
        range.original_line_count.to_string()
    } else {
        format!("at least {}", range.original_line_count)
    };
    let (display, header) = if is_truncated {
        let mut display = format!(
            "Read lines {}-{end_line} of {total} from {shown_path}",
            start_line + 1
        );
        if length_truncated {
            display.push_str(" (truncated)");
        }
        let header = format!(
            "Showing lines {}-{end_line} of {total} total lines.",
            start_line + 1
        );
        (display, Some(header))
    } else {
        (String::new(), None)
    };
    Shown {
        content,
        display,
        is_truncated,
        header,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(offset: usize, lines: Option<usize>, chars: Option<usize>) -> Budget {
        Budget {
            offset,
            lines,
            chars,
        }
    }

    /// Both readers, checked against each other where Qwen's agree: the
    /// streaming one reports a lower bound when it stops early.
    fn check(text: &str, b: Budget) -> Range {
        let decoded = toolpass_core::text::decode(text.as_bytes()).unwrap();
        let small = slice_decoded(&decoded.text, b);
        let large = read_large_utf8(text.as_bytes(), b).unwrap().unwrap();
        assert_eq!(large.content, small.content, "{text:?} {b:?}");
        assert_eq!(large.truncated_by_bytes, small.truncated_by_bytes);
        if large.exact {
            assert_eq!(large.original_line_count, small.original_line_count);
        } else {
            assert!(large.original_line_count <= small.original_line_count);
        }
        small
    }

    #[test]
    fn slices_agree_between_the_whole_file_and_the_streaming_reader() {
        let text = "a\nb\r\nc\n\nd";
        for offset in 0..7 {
            for lines in [None, Some(1), Some(2), Some(10)] {
                check(text, budget(offset, lines, Some(25_000)));
            }
        }
        check("", budget(0, None, None));
        check("\u{FEFF}x\ny", budget(0, Some(1), None));
    }

    #[test]
    fn the_byte_budget_cuts_on_a_character_boundary() {
        let text = format!("a{}", "é".repeat(20_000));
        let range = check(&text, budget(0, Some(10), Some(100)));
        assert!(range.truncated_by_bytes);
        assert_eq!(range.content.len(), 24_999);
    }

    #[test]
    fn non_utf8_large_files_are_refused() {
        let utf16 = [0xFF, 0xFE, b'a', 0];
        let err = read_large_utf8(&utf16[..], budget(0, None, None))
            .unwrap()
            .unwrap_err();
        assert!(err.0.contains("(detected utf-16le)"), "{}", err.0);
        let bad = b"valid\n\xff\xff\xff\xfe\xfd";
        assert!(
            read_large_utf8(&bad[..], budget(0, None, None))
                .unwrap()
                .is_err()
        );
    }

    #[test]
    fn the_character_budget_cuts_one_line_and_marks_it() {
        let range = slice_decoded("aaaa\nbbbbbbbbbbbbbbbbbbbb\ncc", budget(0, None, None));
        let shown = show(&range, budget(0, None, Some(12)), "f.txt");
        assert_eq!(shown.content, "aaaa\nbbbbbbbbbb... [truncated]");
        assert_eq!(
            shown.header.as_deref(),
            Some("Showing lines 1-2 of 3 total lines.")
        );
        assert_eq!(shown.display, "Read lines 1-2 of 3 from f.txt (truncated)");
    }

    #[test]
    fn trailing_white_space_and_carriage_returns_are_trimmed() {
        let range = slice_decoded("a  \r\nb\t\r\n", budget(0, None, None));
        let shown = show(&range, budget(0, None, Some(25_000)), "f");
        assert_eq!(shown.content, "a\nb\n");
        assert!(!shown.is_truncated);
        assert_eq!(shown.display, "");
    }
}
