//! Head/tail truncation of tool output by characters and lines: the
//! arithmetic of Qwen Code's `truncateAndSaveToFile`
//! (`packages/core/src/utils/truncation.ts`), without the file write.
//!
//! [`truncate`] decides whether an output is over its [`Limits`] and, if so,
//! returns a [`Truncation`]: which prefix and suffix of the input are kept and
//! how the preview is assembled. This crate does no IO, so the caller owns the
//! spill file and follows Qwen's order:
//!
//! 1. `truncate(content, &limits)`; `None` means the output goes out as is.
//! 2. `wrapped_message(path)`; `None` is Qwen's "the stub is not shorter than
//!    the original" rule: send the original and write nothing.
//! 3. Write the full content to `path`. On success send the wrapped message;
//!    on failure send [`Truncation::unsaved_message`].
//!
//! # Units
//!
//! Every length and budget is in UTF-16 code units, which is what JavaScript's
//! `.length` counts, so thresholds and cut points agree with Qwen on every
//! input. For ASCII and other BMP text a unit is a char; a char outside the
//! BMP (most emoji) is two units.
//!
//! # Deliberate differences from Qwen
//!
//! - **No half characters.** Where Qwen's `slice` cuts an over-long line
//!   between the two halves of a surrogate pair, it emits a lone surrogate
//!   (which becomes U+FFFD or invalid UTF-8 downstream). Here the cut moves to
//!   the char boundary that keeps the piece *shorter*, so that line carries
//!   one unit less than Qwen's, the preview stays within budget and is valid
//!   UTF-8. The budget accounting is Qwen's (a cut line still consumes the
//!   whole remaining budget), so every other piece is identical.
//! - **Integers, not JavaScript numbers.** Qwen's "`threshold <= 0` or
//!   `lines <= 0` means no truncation" is `threshold == 0` or
//!   `lines == Some(0)`; its `Infinity` line cap is `lines: None`, and an
//!   infinite threshold is `usize::MAX`.
//! - **A plan, not a result.** Writing the file, naming it (`basename` +
//!   `.output`), telemetry, the empty-output marker and the merging of
//!   `Part[]` text belong to the IO layer.
//!
//! # Cost
//!
//! One counting pass over the input (UTF-16 length and newlines, in a loop
//! that auto-vectorises), then the head is walked from the front and the tail
//! from the back with `memchr`, touching only what is kept plus at most three
//! bytes per unit of budget of a line that gets cut. Input whose byte length
//! is within the threshold skips the counting pass when no line cap applies,
//! since UTF-16 length never exceeds UTF-8 length.

pub(crate) mod measure;
#[cfg(test)]
mod model;
#[cfg(test)]
mod tests;

use std::ops::Range;

use memchr::{memchr, memchr_iter, memrchr};

use measure::{Measure, measure, prefix_within, suffix_within, units};

/// The start of every truncated tool output. An output that already starts
/// with it is never truncated again, which would nest headers and spill a
/// duplicate file.
pub const TOOL_OUTPUT_TRUNCATED_PREFIX: &str = "Tool output was too large and has been truncated";

/// The line that introduces the preview inside the wrapped message.
pub const TRUNCATED_PART_MARKER: &str = "Truncated part of the output:\n";

/// What stands in for the omitted content in a preview. It is paid for out of
/// the preview budget, and dropped when the budget is not larger than it.
pub const SEPARATOR: &str = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n";

/// Qwen's default per-result character threshold
/// (`DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD`).
pub const DEFAULT_THRESHOLD: usize = 25_000;

/// Qwen's default per-result line threshold (`DEFAULT_TRUNCATE_TOOL_OUTPUT_LINES`).
pub const DEFAULT_LINES: usize = 1_000;

/// Marks where a line that overflowed the budget was cut.
const ELLIPSIS: &str = "...";

/// Appended to the preview when the spill file could not be written.
const UNSAVED_NOTE: &str = "\n[Note: Could not save full output to file]";

/// The wrapped message around the spill file's path. `read_file` is Qwen's
/// `ReadFileTool.Name`.
const WRAP_BEFORE_PATH: &str = ".\nThe full output has been saved to: ";
const WRAP_AFTER_PATH: &str = "\nTo read the complete output, use the read_file tool with the \
    absolute file path above.\nThe truncated output below shows the beginning and end of the \
    content. The marker '... [CONTENT TRUNCATED] ...' indicates where content was removed.\n\n";

/// Which part of an over-long output survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Keep {
    /// The first fifth and the last four fifths of the line and character
    /// budgets: the command's start and its final status. Qwen's default.
    #[default]
    Both,
    /// All of the budget to the beginning.
    Head,
    /// All of the budget to the end.
    Tail,
}

/// When an output is truncated and how much of it the preview may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Outputs longer than this many UTF-16 units are truncated; 0 disables
    /// truncation.
    pub threshold: usize,
    /// Outputs with more lines than this are truncated, and the preview shows
    /// at most this many; `None` is no line cap, `Some(0)` disables
    /// truncation.
    pub lines: Option<usize>,
    /// Which part survives.
    pub keep: Keep,
    /// The preview's budget in UTF-16 units, separator included; `None` is
    /// `threshold`.
    pub preview_chars: Option<usize>,
}

impl Default for Limits {
    /// Qwen's global defaults: 25 000 characters, 1 000 lines, head and tail.
    fn default() -> Self {
        Self {
            threshold: DEFAULT_THRESHOLD,
            lines: Some(DEFAULT_LINES),
            keep: Keep::Both,
            preview_chars: None,
        }
    }
}

/// The plan for one over-long output: a kept prefix and a kept suffix of the
/// input, each possibly ending (or starting) with `...` where a line was cut,
/// and the separator between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation<'a> {
    content: &'a str,
    head: Side,
    tail: Side,
    separator: bool,
    content_units: usize,
}

/// Returns how `content` is truncated under `limits`, or `None` when it is
/// within both limits (or must not be truncated) and goes out as is.
///
/// Never panics; a returned plan always describes a preview within the
/// preview budget.
pub fn truncate<'a>(content: &'a str, limits: &Limits) -> Option<Truncation<'a>> {
    if limits.threshold == 0
        || limits.lines == Some(0)
        || content.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX)
    {
        return None;
    }
    let bytes = content.as_bytes();
    // UTF-16 length is at most the UTF-8 length, so a short input can only be
    // over its line cap, and that check stops counting at the cap.
    if bytes.len() <= limits.threshold && !more_lines_than(bytes, limits.lines) {
        return None;
    }
    let Measure {
        units: content_units,
        newlines,
    } = measure(bytes);
    let line_count = newlines.saturating_add(1);
    let line_cap = limits.lines.unwrap_or(usize::MAX);
    if content_units <= limits.threshold && line_count <= line_cap {
        return None;
    }

    let effective_lines = line_cap.min(line_count);
    let (head_lines, tail_lines) = match limits.keep {
        Keep::Head => (effective_lines, 0),
        Keep::Tail => (0, effective_lines),
        Keep::Both => {
            let head = (effective_lines / 5).max(1);
            (head, effective_lines.saturating_sub(head))
        }
    };
    let budget = limits.preview_chars.unwrap_or(limits.threshold);
    // Below the separator's own length there is no room to show content and
    // still say something was cut; the wrapped message says it anyway.
    let separator = budget > SEPARATOR.len();
    let content_budget = if separator {
        budget - SEPARATOR.len()
    } else {
        budget
    };
    let head_budget = match limits.keep {
        Keep::Head => content_budget,
        Keep::Tail => 0,
        Keep::Both => content_budget / 5,
    };
    let head = take_head(bytes, head_lines, head_budget);
    let tail_budget = match limits.keep {
        Keep::Head => 0,
        Keep::Tail | Keep::Both => content_budget.saturating_sub(head.charged),
    };
    // Lines already shown in the head (a cut one included) never reappear in
    // the tail.
    let tail_stop = line_count.saturating_sub(tail_lines).max(head.pieces);
    let tail = take_tail(bytes, line_count, tail_stop, tail_budget);
    Some(Truncation {
        content,
        head,
        tail,
        separator,
        content_units,
    })
}

impl<'a> Truncation<'a> {
    /// The preview: kept head, separator, kept tail, with `...` where a line
    /// was cut. Qwen's `truncatedContent`.
    pub fn preview(&self) -> String {
        let mut out = String::with_capacity(self.preview_byte_len());
        self.push_preview(&mut out);
        out
    }

    /// Length of [`preview`](Self::preview) in UTF-16 units; never more than
    /// the preview budget.
    pub fn preview_units(&self) -> usize {
        let separator = if self.separator { SEPARATOR.len() } else { 0 };
        self.head.units + separator + self.tail.units
    }

    /// Length of the original content in UTF-16 units.
    pub fn content_units(&self) -> usize {
        self.content_units
    }

    /// The prefix of the input the preview starts with (before any `...`).
    pub fn kept_head(&self) -> &'a str {
        self.content.get(..self.head.edge).unwrap_or_default()
    }

    /// The suffix of the input the preview ends with (after any `...`).
    pub fn kept_tail(&self) -> &'a str {
        self.content.get(self.tail.edge..).unwrap_or_default()
    }

    /// Byte range of the input that the preview does not show.
    pub fn omitted(&self) -> Range<usize> {
        self.head.edge..self.tail.edge.max(self.head.edge)
    }

    /// Qwen's `wrappedMessage`: the prefix, where the full output was saved,
    /// and the preview. `None` when it would not be shorter than the original
    /// output, in which case Qwen sends the original and writes no file.
    pub fn wrapped_message(&self, output_file: &str) -> Option<String> {
        let fixed = TOOL_OUTPUT_TRUNCATED_PREFIX.len()
            + WRAP_BEFORE_PATH.len()
            + WRAP_AFTER_PATH.len()
            + TRUNCATED_PART_MARKER.len();
        let wrapped_units = fixed
            .saturating_add(output_file.encode_utf16().count())
            .saturating_add(self.preview_units());
        if wrapped_units >= self.content_units {
            return None;
        }
        let mut out = String::with_capacity(fixed + output_file.len() + self.preview_byte_len());
        out.push_str(TOOL_OUTPUT_TRUNCATED_PREFIX);
        out.push_str(WRAP_BEFORE_PATH);
        out.push_str(output_file);
        out.push_str(WRAP_AFTER_PATH);
        out.push_str(TRUNCATED_PART_MARKER);
        self.push_preview(&mut out);
        Some(out)
    }

    /// What Qwen sends when the spill file could not be written: the preview
    /// and a note, with no pointer to a file.
    pub fn unsaved_message(&self) -> String {
        let mut out = String::with_capacity(self.preview_byte_len() + UNSAVED_NOTE.len());
        self.push_preview(&mut out);
        out.push_str(UNSAVED_NOTE);
        out
    }

    fn push_preview(&self, out: &mut String) {
        out.push_str(self.kept_head());
        if self.head.ellipsis {
            out.push_str(ELLIPSIS);
        }
        if self.separator {
            out.push_str(SEPARATOR);
        }
        if self.tail.ellipsis {
            out.push_str(ELLIPSIS);
        }
        out.push_str(self.kept_tail());
    }

    fn preview_byte_len(&self) -> usize {
        let ellipses = usize::from(self.head.ellipsis) + usize::from(self.tail.ellipsis);
        let separator = if self.separator { SEPARATOR.len() } else { 0 };
        self.kept_head().len() + ellipses * ELLIPSIS.len() + separator + self.kept_tail().len()
    }
}

/// One end of the preview, as Qwen's `beginning` or `end` array describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Side {
    /// Byte offset where the kept input stops (head) or starts (tail).
    edge: usize,
    /// Whether a cut line adds `...` at the inner end.
    ellipsis: bool,
    /// Entries of Qwen's array: whole lines plus a cut one.
    pieces: usize,
    /// Qwen's `headChars`/`tailChars`: each whole line costs its length plus
    /// one, and a cut uses up the whole budget.
    charged: usize,
    /// UTF-16 length of the pieces joined with `\n`, `...` included.
    units: usize,
}

impl Side {
    fn empty(edge: usize) -> Self {
        Self {
            edge,
            ellipsis: false,
            pieces: 0,
            charged: 0,
            units: 0,
        }
    }

    /// Adds a piece of `units` UTF-16 units, joined to the others by `\n`.
    fn add_piece(&mut self, units: usize) {
        let join = usize::from(self.pieces > 0);
        self.units = self.units + join + units;
        self.pieces += 1;
    }
}

/// Whether `bytes` split on `\n` gives more than `cap` lines, counting no
/// further than needed.
fn more_lines_than(bytes: &[u8], cap: Option<usize>) -> bool {
    cap.is_some_and(|cap| {
        memchr_iter(b'\n', bytes)
            .nth(cap.saturating_sub(1))
            .is_some()
    })
}

/// Widest a run of `units` UTF-16 units can be in UTF-8: a BMP char is one
/// unit in at most three bytes, and a 4-byte char is two units.
fn max_bytes(units: usize) -> usize {
    units.saturating_mul(3)
}

/// Qwen's head loop: whole lines from the front while each fits with its
/// newline, then the next line cut to what is left, with `...`, if at least
/// the ellipsis fits.
fn take_head(bytes: &[u8], max_lines: usize, budget: usize) -> Side {
    let mut side = Side::empty(0);
    let mut pos: usize = 0;
    while side.pieces < max_lines {
        let remaining = budget.saturating_sub(side.charged);
        if remaining == 0 {
            break;
        }
        // A line with no newline in this window is at least `remaining` units
        // long, so it is cut without scanning the rest of it.
        let window_end = pos.saturating_add(max_bytes(remaining)).min(bytes.len());
        let Some(window) = bytes.get(pos..window_end) else {
            break;
        };
        let line = match memchr(b'\n', window) {
            Some(len) => window.get(..len),
            None if window_end == bytes.len() => Some(window),
            None => None,
        };
        if let Some(line) = line {
            let line_units = units(line);
            if line_units < remaining {
                side.add_piece(line_units);
                side.charged += line_units + 1;
                side.edge = pos + line.len();
                pos = side.edge + 1;
                continue;
            }
        }
        if let Some(keep_units) = remaining.checked_sub(ELLIPSIS.len()) {
            let (end, kept) = prefix_within(line.unwrap_or(window), keep_units);
            side.add_piece(kept + ELLIPSIS.len());
            side.edge = pos + end;
            side.ellipsis = true;
        }
        side.charged = budget;
        break;
    }
    side
}

/// Qwen's tail loop, the mirror image of [`take_head`]: whole lines from the
/// back down to line index `stop_line`, then one cut line with a leading
/// `...`.
fn take_tail(bytes: &[u8], line_count: usize, stop_line: usize, budget: usize) -> Side {
    let mut side = Side::empty(bytes.len());
    // The end of the current line, and the number of lines not yet walked
    // (so the current line's index is one less).
    let mut end = bytes.len();
    let mut lines_left = line_count;
    while lines_left > stop_line {
        let remaining = budget.saturating_sub(side.charged);
        if remaining == 0 {
            break;
        }
        let window_start = end.saturating_sub(max_bytes(remaining));
        let Some(window) = bytes.get(window_start..end) else {
            break;
        };
        let start = match memrchr(b'\n', window) {
            Some(newline) => Some(window_start + newline + 1),
            None if window_start == 0 => Some(0),
            None => None,
        };
        let line = start.and_then(|start| bytes.get(start..end));
        if let (Some(start), Some(line)) = (start, line) {
            let line_units = units(line);
            if line_units < remaining {
                side.add_piece(line_units);
                side.charged += line_units + 1;
                side.edge = start;
                end = start.saturating_sub(1);
                lines_left -= 1;
                continue;
            }
        }
        if let Some(keep_units) = remaining.checked_sub(ELLIPSIS.len()) {
            let cut = line.unwrap_or(window);
            let (start, kept) = suffix_within(cut, keep_units);
            side.add_piece(kept + ELLIPSIS.len());
            side.edge = end - cut.len() + start;
            side.ellipsis = true;
        }
        side.charged = budget;
        break;
    }
    side
}

/// The longest prefix of `text` of at most `max_units` UTF-16 units, ending
/// on a char boundary (JavaScript's `text.slice(0, max_units)` without half
/// characters): the prefix, its length in units, and whether anything was
/// cut.
#[must_use]
pub fn utf16_prefix(text: &str, max_units: usize) -> (&str, usize, bool) {
    let (end, used) = prefix_within(text.as_bytes(), max_units);
    // `prefix_within` stops on a char boundary.
    let prefix = text.get(..end).unwrap_or(text);
    (prefix, used, end < text.len())
}
