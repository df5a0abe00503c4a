//! The line-window tiers: Qwen's `findLineBasedMatch` with its
//! `LINE_COMPARISON_PASSES` and `normalizeLineForComparison`.
//!
//! Qwen runs each pass over every window before trying the next pass. This
//! module runs all passes in one walk over the candidate windows and keeps the
//! first window each pass accepted, which returns the same window: the
//! strongest pass that matched anywhere, at its first position.

use memchr::{memchr, memmem, memrchr};

use super::{LinePass, MatchTier, SliceMatch, folded::longest_stable_run};
use crate::fold::{eq_folded, trim_end_js};

/// Finds the first line window matching `needle`, trying the whole needle
/// first and then the needle without its trailing empty line.
pub(super) fn find(haystack: &str, needle: &str) -> Option<SliceMatch> {
    let pattern: Vec<&str> = needle.split('\n').collect();
    let ends_with_newline = needle.ends_with('\n');

    // With the whole needle the exact pass cannot match: equal lines joined
    // by '\n' would be the needle itself, which the literal search did not
    // find. Skipping it saves a walk and changes no answer.
    if let Some((start, pass)) = seek(haystack, &pattern, false) {
        // The trailing split element is covered by the newline flag.
        let line_count = pattern.len() - usize::from(ends_with_newline);
        return Some(SliceMatch {
            range: start..end_of_window(haystack, start, line_count, ends_with_newline),
            tier: MatchTier::Lines(pass),
            removed_trailing_final_empty_line: false,
        });
    }

    let (last, trimmed) = pattern.split_last()?;
    if !last.is_empty() || trimmed.is_empty() {
        return None;
    }
    let (start, pass) = seek(haystack, trimmed, true)?;
    Some(SliceMatch {
        range: start..end_of_window(haystack, start, trimmed.len(), false),
        tier: MatchTier::Lines(pass),
        removed_trailing_final_empty_line: true,
    })
}

/// Qwen's `sliceFromLines` for a window starting at byte `start`: the end of
/// its last line, plus the newline after it when asked and present.
fn end_of_window(haystack: &str, start: usize, line_count: usize, with_newline: bool) -> usize {
    let bytes = haystack.as_bytes();
    let mut line_start = start;
    for _ in 1..line_count {
        line_start = next_line_start(bytes, line_start).unwrap_or(bytes.len());
    }
    match next_line_start(bytes, line_start) {
        Some(next) if with_newline => next,
        Some(next) => next - 1,
        None => bytes.len(),
    }
}

/// The start of the line after the one starting at `line_start`, if there is
/// a newline to end it.
fn next_line_start(bytes: &[u8], line_start: usize) -> Option<usize> {
    let rest = bytes.get(line_start..)?;
    memchr(b'\n', rest).map(|i| line_start + i + 1)
}

/// The start of the line before the one starting at `line_start`.
fn previous_line_start(bytes: &[u8], line_start: usize) -> Option<usize> {
    let before = bytes.get(..line_start.checked_sub(1)?)?;
    Some(memrchr(b'\n', before).map_or(0, |i| i + 1))
}

/// The byte offset where the first window accepted by the strongest pass
/// starts, and that pass.
fn seek(haystack: &str, pattern: &[&str], with_exact: bool) -> Option<(usize, LinePass)> {
    let bytes = haystack.as_bytes();
    let mut best = Best::default();
    let mut consider = |start: usize| {
        let verdict = compare_window(haystack, start, pattern);
        best.record(start, verdict, with_exact)
    };

    match Anchor::choose(pattern) {
        Some(anchor) => {
            let finder = memmem::Finder::new(anchor.text.as_bytes());
            let mut from = 0;
            while let Some(offset) = bytes.get(from..).and_then(|h| finder.find(h)) {
                let hit = from + offset;
                let hit_line = bytes
                    .get(..hit)
                    .and_then(|b| memrchr(b'\n', b))
                    .map_or(0, |i| i + 1);
                let window =
                    (0..anchor.line).try_fold(hit_line, |line, _| previous_line_start(bytes, line));
                if let Some(start) = window
                    && consider(start)
                {
                    break;
                }
                // Every other hit on this line names the same window.
                match next_line_start(bytes, hit_line) {
                    Some(next) => from = next,
                    None => break,
                }
            }
        }
        None => {
            let mut start = Some(0);
            while let Some(line) = start {
                if consider(line) {
                    break;
                }
                start = next_line_start(bytes, line);
            }
        }
    }
    best.into_answer()
}

/// The longest run of fold-stable characters among the pattern's trimmed
/// lines, and which line it is on.
///
/// Every pass compares trimmed lines at least, and fold-stable characters
/// only ever match themselves, so every window any pass accepts has this
/// text, byte for byte, on line `line` of the window.
struct Anchor<'p> {
    text: &'p str,
    line: usize,
}

impl<'p> Anchor<'p> {
    fn choose(pattern: &[&'p str]) -> Option<Self> {
        pattern
            .iter()
            .enumerate()
            .filter_map(|(line, text)| {
                let trimmed = trim_end_js(text);
                let text = trimmed.get(longest_stable_run(trimmed))?;
                Some(Anchor { text, line })
            })
            .filter(|anchor| !anchor.text.is_empty())
            // The first of equally long runs, for a deterministic choice.
            .rev()
            .max_by_key(|anchor| anchor.text.len())
    }
}

/// Which passes accept one window.
#[derive(Clone, Copy)]
struct Verdict {
    exact: bool,
    trim_end: bool,
    fold_trim_end: bool,
}

fn compare_window(haystack: &str, start: usize, pattern: &[&str]) -> Verdict {
    let mut verdict = Verdict {
        exact: true,
        trim_end: true,
        fold_trim_end: true,
    };
    let mut lines = haystack.get(start..).unwrap_or_default().split('\n');
    for expected in pattern {
        let Some(actual) = lines.next() else {
            return Verdict {
                exact: false,
                trim_end: false,
                fold_trim_end: false,
            };
        };
        verdict.exact &= actual == *expected;
        let (actual, expected) = (trim_end_js(actual), trim_end_js(expected));
        if actual != expected {
            verdict.trim_end = false;
            // Folding commutes with trimming here: every folded-from space
            // is itself whitespace JavaScript trims, and no fold turns a
            // non-space into a space, so fold(trim(x)) == trim(fold(x)).
            verdict.fold_trim_end &= eq_folded(actual, expected);
        }
        if !verdict.fold_trim_end {
            return verdict;
        }
    }
    verdict
}

/// The first window each pass accepted so far.
#[derive(Default)]
struct Best {
    exact: Option<usize>,
    trim_end: Option<usize>,
    fold_trim_end: Option<usize>,
}

impl Best {
    /// Records a window's verdict; returns true when the walk can stop
    /// because no later window can beat what is found.
    fn record(&mut self, start: usize, verdict: Verdict, with_exact: bool) -> bool {
        if with_exact && verdict.exact {
            self.exact.get_or_insert(start);
            return true;
        }
        if verdict.trim_end {
            self.trim_end.get_or_insert(start);
            if !with_exact {
                return true;
            }
        }
        if verdict.fold_trim_end {
            self.fold_trim_end.get_or_insert(start);
        }
        false
    }

    fn into_answer(self) -> Option<(usize, LinePass)> {
        self.exact
            .map(|s| (s, LinePass::Exact))
            .or(self.trim_end.map(|s| (s, LinePass::TrimEnd)))
            .or(self.fold_trim_end.map(|s| (s, LinePass::FoldTrimEnd)))
    }
}
