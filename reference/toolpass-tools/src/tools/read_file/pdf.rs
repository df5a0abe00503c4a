//! PDFs as `read_file` reads them for a model without PDF input: text
//! extracted by poppler's `pdftotext`, page counts from `pdfinfo`, as Qwen
//! Code's `packages/core/src/utils/pdf.ts` does (same programs, arguments,
//! limits and messages). Rendering pages to images is not done: the
//! reference has no image input either.
//!
//! Beyond Qwen: the programs read the file the tool already opened beneath
//! the sandbox, as their standard input (poppler's `fd://0`), never a path
//! they would resolve again.

use std::fs::File;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use crate::tools::exec_file::exec_file;

/// `PDF_MAX_PAGES_PER_READ`.
pub(super) const MAX_PAGES_PER_READ: u32 = 20;
/// `MAX_PDF_PAGE_NUMBER`.
const MAX_PAGE_NUMBER: u32 = 1_000_000;
/// `MAX_PDF_TEXT_OUTPUT_CHARS`.
const MAX_TEXT_CHARS: usize = 100_000;
/// `PDF_FULL_TEXT_PAGE_LIMIT`.
const FULL_TEXT_PAGE_LIMIT: u64 = 10;
/// `PDF_PAGE_COUNT_SIZE_HEURISTIC_BYTES`.
const PAGE_SIZE_HEURISTIC: u64 = 100 * 1024;
/// `PDF_TEXT_RESULT_MAX_TOKENS`.
pub(super) const TEXT_RESULT_MAX_TOKENS: u64 = 12_000;
/// `PDF_TEXT_EXTRACTION_UNAVAILABLE_MESSAGE`.
pub(super) const UNAVAILABLE: &str = "pdftotext is not installed. Install poppler-utils to enable PDF text extraction (e.g. `apt-get install poppler-utils` or `brew install poppler`).";

/// The file name poppler reads as its standard input.
const STDIN_FILE: &str = "fd://0";

/// An inclusive page range; `last` is `None` for an open end (`"3-"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PageRange {
    pub first: u32,
    pub last: Option<u32>,
}

/// `parsePDFPageRange`: `"5"`, `"1-10"`, `"3-"`.
pub(super) fn parse_page_range(pages: &str) -> Option<PageRange> {
    let number = |s: &str| -> Option<u32> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse::<u64>()
            .ok()
            .filter(|n| (1..=u64::from(MAX_PAGE_NUMBER)).contains(n))
            .and_then(|n| u32::try_from(n).ok())
    };
    let trimmed = pages.trim();
    match trimmed.split_once('-') {
        Some((first, last)) => {
            let first = number(first.trim_end())?;
            let last = last.trim_start();
            if last.is_empty() {
                return Some(PageRange { first, last: None });
            }
            let last = number(last)?;
            (last >= first).then_some(PageRange {
                first,
                last: Some(last),
            })
        }
        None => number(trimmed).map(|p| PageRange {
            first: p,
            last: Some(p),
        }),
    }
}

/// `shouldRequirePDFPageRange`: the page count (or an estimate from the
/// size), and whether a range is required.
pub(super) fn requires_range(pages: Option<u64>, size: u64) -> (bool, u64, bool) {
    let effective = pages.unwrap_or_else(|| size.div_ceil(PAGE_SIZE_HEURISTIC));
    (effective > FULL_TEXT_PAGE_LIMIT, effective, pages.is_some())
}

/// `buildLargePDFGuidance`.
pub(super) fn large_pdf_guidance(name: &str, effective: u64, had_info: bool) -> String {
    let source = if had_info {
        "has"
    } else {
        "appears to have about"
    };
    format!(
        "PDF \"{name}\" {source} {effective} pages, which is too many to read at once. Use the 'pages' parameter to read a specific page range such as '1-5'. Maximum {MAX_PAGES_PER_READ} pages per request."
    )
}

/// `buildPDFTextTooLargeGuidance`.
pub(super) fn text_too_large_guidance(name: &str, tokens: u64, pages: Option<&str>) -> String {
    let prefix = format!(
        "PDF text extracted from \"{name}\" is too large to return safely ({tokens} estimated tokens; limit {TEXT_RESULT_MAX_TOKENS})."
    );
    match pages.and_then(parse_page_range) {
        Some(r) if r.last == Some(r.first) => format!(
            "{prefix} The selected page exceeds the output limit. Use a native PDF-capable model, split the page content externally, or extract a smaller section with another tool."
        ),
        Some(PageRange {
            first,
            last: Some(last),
        }) => {
            let end = (first + last) / 2;
            if end == first {
                format!(
                    "{prefix} Use the 'pages' parameter with a single page, for example '{first}'."
                )
            } else {
                format!(
                    "{prefix} Use the 'pages' parameter with fewer pages, for example '{first}-{end}' or a single page."
                )
            }
        }
        _ => format!(
            "{prefix} Use the 'pages' parameter with a narrower range, for example '1-2' or a single page."
        ),
    }
}

/// `estimatePDFTextOutputTokens` (Qwen's `estimateTextTokens` plus the
/// wrapper's 16 tokens).
pub(super) fn estimate_tokens(text: &str) -> u64 {
    let units: Vec<u16> = text.encode_utf16().collect();
    let base = if units.is_empty() {
        0.0
    } else {
        let non_ascii = units.iter().filter(|&&u| u >= 128).count() as f64;
        let ascii = units.len() as f64 - non_ascii;
        (ascii / 4.0 + non_ascii * 1.1).ceil()
    };
    // The estimate is small and non-negative.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let tokens = (base + 16.0).ceil() as u64;
    tokens
}

/// The poppler programs, found on `PATH` unless a test points elsewhere.
#[derive(Debug)]
pub(crate) struct PdfTools {
    pdftotext: String,
    pdfinfo: String,
    available: OnceLock<bool>,
}

impl Default for PdfTools {
    fn default() -> Self {
        PdfTools::new("pdftotext", "pdfinfo")
    }
}

/// What one program run produced (Node's `execFile` callback).
struct Run {
    stdout: String,
    stderr: String,
    code: i32,
    max_buffer_exceeded: bool,
    timed_out: bool,
}

impl PdfTools {
    /// The tools at these program paths.
    pub(crate) fn new(pdftotext: &str, pdfinfo: &str) -> Self {
        PdfTools {
            pdftotext: pdftotext.to_owned(),
            pdfinfo: pdfinfo.to_owned(),
            available: OnceLock::new(),
        }
    }

    /// `isPdftotextAvailable`, remembered like Qwen's module-level cache.
    pub(super) fn text_available(&self) -> bool {
        *self.available.get_or_init(|| {
            run(
                &self.pdftotext,
                &["-v"],
                None,
                Duration::from_secs(5),
                usize::MAX,
            )
            .is_some_and(|r| r.code == 0)
        })
    }

    /// `getPDFPageCount`.
    pub(super) fn page_count(&self, file: &File) -> Option<u64> {
        let r = run(
            &self.pdfinfo,
            &["--", STDIN_FILE],
            Some(file),
            Duration::from_secs(10),
            usize::MAX,
        )?;
        if r.code != 0 {
            return None;
        }
        r.stdout.lines().find_map(|line| {
            let rest = line.strip_prefix("Pages:")?;
            let digits = rest.trim_start();
            if digits.len() == rest.len() {
                return None;
            }
            let digits: String = digits.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
    }

    /// `extractPDFText`: the text, or why there is none.
    pub(super) fn extract_text(
        &self,
        file: &File,
        range: Option<PageRange>,
    ) -> Result<String, String> {
        if !self.text_available() {
            return Err(UNAVAILABLE.to_owned());
        }
        let mut args: Vec<String> = vec!["-layout".to_owned()];
        if let Some(r) = range {
            args.push("-f".to_owned());
            args.push(r.first.to_string());
            if let Some(last) = r.last {
                args.push("-l".to_owned());
                args.push(last.to_string());
            }
        }
        args.push("--".to_owned());
        args.push(STDIN_FILE.to_owned());
        args.push("-".to_owned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let Some(r) = run(
            &self.pdftotext,
            &args,
            Some(file),
            Duration::from_secs(30),
            MAX_TEXT_CHARS * 2,
        ) else {
            return Err("pdftotext execution failed: could not start pdftotext".to_owned());
        };
        let suffix = |reason: &str| {
            format!(
                "\n\n... [text truncated {reason}. Use the 'pages' parameter to read specific page ranges.]"
            )
        };
        if r.timed_out {
            return Err("pdftotext timed out after 30s. The PDF may be unusually large or complex; try the 'pages' parameter to narrow the range.".to_owned());
        }
        let chars = crate::tools::node::utf16_len(&r.stdout);
        if r.max_buffer_exceeded && r.stdout.len() >= MAX_TEXT_CHARS {
            let (text, reason) = if chars > MAX_TEXT_CHARS {
                (
                    crate::tools::node::utf16_prefix(&r.stdout, MAX_TEXT_CHARS),
                    format!("at {MAX_TEXT_CHARS} characters"),
                )
            } else {
                (
                    r.stdout.as_str(),
                    "after reaching the PDF text buffer limit".to_owned(),
                )
            };
            return Ok(format!("{text}{}", suffix(&reason)));
        }
        if r.code != 0 || r.max_buffer_exceeded {
            let lower = r.stderr.to_lowercase();
            if lower.contains("password") {
                return Err(
                    "PDF is password-protected. Please provide an unprotected version.".to_owned(),
                );
            }
            if ["damaged", "corrupt", "invalid"]
                .iter()
                .any(|w| lower.contains(w))
            {
                return Err("PDF file is corrupted or invalid.".to_owned());
            }
            let stderr = if r.stderr.is_empty() {
                "(no stderr)"
            } else {
                &r.stderr
            };
            return Err(format!("pdftotext failed: {stderr}"));
        }
        if r.stdout.trim().is_empty() {
            return Err(
                "pdftotext produced no text output. The PDF may contain only images.".to_owned(),
            );
        }
        if chars > MAX_TEXT_CHARS {
            return Ok(format!(
                "{}{}",
                crate::tools::node::utf16_prefix(&r.stdout, MAX_TEXT_CHARS),
                suffix(&format!("at {MAX_TEXT_CHARS} characters"))
            ));
        }
        Ok(r.stdout)
    }
}

/// Runs `program` as Node's `execFile` does (`exec_file`), its output as
/// the text Node hands the callback.
fn run(
    program: &str,
    args: &[&str],
    input: Option<&File>,
    timeout: Duration,
    max_stdout: usize,
) -> Option<Run> {
    let mut command = Command::new(program);
    command.args(args);
    let done = exec_file(command, input, timeout, max_stdout)?;
    Some(Run {
        stdout: String::from_utf8_lossy(&done.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&done.stderr).into_owned(),
        code: done.code.unwrap_or(1),
        max_buffer_exceeded: done.max_buffer_exceeded,
        timed_out: done.timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges_parse_like_qwen() {
        let r = |f, l| Some(PageRange { first: f, last: l });
        assert_eq!(parse_page_range("5"), r(5, Some(5)));
        assert_eq!(parse_page_range(" 1 - 10 "), r(1, Some(10)));
        assert_eq!(parse_page_range("3-"), r(3, None));
        assert_eq!(parse_page_range("0"), None);
        assert_eq!(parse_page_range("4-2"), None);
        assert_eq!(parse_page_range("a"), None);
        assert_eq!(parse_page_range("1-2-3"), None);
    }

    #[test]
    fn guidance_texts() {
        assert_eq!(
            text_too_large_guidance("a.pdf", 20_000, Some("3-10")),
            "PDF text extracted from \"a.pdf\" is too large to return safely (20000 estimated tokens; limit 12000). Use the 'pages' parameter with fewer pages, for example '3-6' or a single page."
        );
        assert_eq!(requires_range(None, 2 * 1024 * 1024), (true, 21, false));
        assert_eq!(estimate_tokens("abcd"), 17);
    }
}
