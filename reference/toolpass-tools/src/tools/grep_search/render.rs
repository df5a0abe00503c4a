//! What the model reads: Qwen's `GrepToolInvocation.execute` from the raw
//! matches on, byte for byte.
//!
//! ```text
//! Found 3 matches for pattern "hello" in the workspace directory (filter: "*.txt"):
//! ---
//! File: a.txt
//! L2: hello again
//! ---
//! File: sub/b.txt
//! L1: hello
//! L7: hello there
//! ---
//! ```
//!
//! Lengths are UTF-16 units, as JavaScript counts them. Quirks kept:
//! files whose relative path is a canonical array index (`5`, `123`) come
//! first in numeric order, because Qwen groups matches in a plain object;
//! lines are trimmed with JavaScript's `trim` (which strips U+FEFF but not
//! U+0085); and the omitted-lines count is what Qwen computes by counting the
//! lines of the cut output, partial line and `...` included.

use std::path::PathBuf;

use super::search::{FileHits, Hit};
use crate::tools::node::{js_trim, utf16_len, utf16_prefix};

/// The two caps of Qwen's own rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Characters (UTF-16 units) of the match listing; the header is not
    /// counted. `usize::MAX` is no cap.
    pub chars: usize,
    /// Matched lines listed at most.
    pub lines: usize,
}

impl Budget {
    /// No cap at all.
    pub const UNLIMITED: Budget = Budget {
        chars: usize::MAX,
        lines: usize::MAX,
    };
}

/// The rendered result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The text for the model.
    pub llm_content: String,
    /// The short text for a person: `Found 3 matches (truncated)`.
    pub display: String,
    /// The files of the listed lines, first appearance first: Qwen's
    /// `resultFilePaths`, which it also records as read.
    pub visible: Vec<PathBuf>,
}

/// Renders `files` (in search order) for `pattern` searched `location`
/// (`in path "src"` or `in the workspace directory`).
#[must_use]
pub fn render(
    pattern: &str,
    location: &str,
    glob: Option<&str>,
    files: &[FileHits],
    budget: Budget,
) -> Rendered {
    let filter = glob
        .filter(|g| !g.is_empty())
        .map(|g| format!(" (filter: \"{g}\")"))
        .unwrap_or_default();
    let total: usize = files.iter().map(|f| f.hits.len()).sum();
    if total == 0 {
        return Rendered {
            llm_content: format!("No matches found for pattern \"{pattern}\" {location}{filter}."),
            display: "No matches found".to_owned(),
            visible: Vec::new(),
        };
    }
    let term = if total == 1 { "match" } else { "matches" };
    let header =
        format!("Found {total} {term} for pattern \"{pattern}\" {location}{filter}:\n---\n");

    let truncated_by_lines = total > budget.lines;
    let groups = group_like_a_js_object(files, budget.lines);
    let mut out = Output::new(budget.chars);
    'files: for (file, hits) in &groups {
        if !out.append(&format!("File: {}\n", file.rel), None) {
            break;
        }
        for hit in *hits {
            let line = format!("L{}: {}\n", hit.line_number, js_trim(&hit.line));
            if !out.append(&line, Some(file)) {
                break 'files;
            }
        }
        if !out.append("---\n", None) {
            break;
        }
    }

    let included = out
        .text
        .split('\n')
        .filter(|l| !js_trim(l).is_empty() && !l.starts_with("File:") && !l.starts_with("---"))
        .count();
    let truncated = truncated_by_lines || out.truncated;
    let mut llm_content = header + &out.text;
    if truncated {
        // Signed: Qwen prints whatever the subtraction gives.
        #[allow(clippy::cast_possible_wrap)]
        let omitted = total as i64 - included as i64;
        let unit = if omitted == 1 { "line" } else { "lines" };
        llm_content.push_str(&format!(" [{omitted} {unit} truncated] ..."));
    }
    let mut display = format!("Found {total} {term}");
    if truncated {
        display.push_str(" (truncated)");
    }
    Rendered {
        llm_content: js_trim(&llm_content).to_owned(),
        display,
        visible: out.visible,
    }
}

/// Qwen's `appendChunk` loop state.
struct Output<'a> {
    text: String,
    units: usize,
    limit: usize,
    truncated: bool,
    visible: Vec<PathBuf>,
    seen: std::collections::HashSet<&'a std::path::Path>,
}

impl<'a> Output<'a> {
    fn new(limit: usize) -> Self {
        Output {
            text: String::new(),
            units: 0,
            limit,
            truncated: false,
            visible: Vec::new(),
            seen: std::collections::HashSet::new(),
        }
    }

    /// Appends `chunk`, or as much of it as fits followed by `...`; returns
    /// whether it fit. A cut match line still counts as shown.
    fn append(&mut self, chunk: &str, file: Option<&'a FileHits>) -> bool {
        let units = utf16_len(chunk);
        let fits = self.units.saturating_add(units) <= self.limit;
        if fits {
            self.text.push_str(chunk);
            self.units += units;
        } else {
            let room = self.limit.saturating_sub(self.units);
            self.text.push_str(utf16_prefix(chunk, room));
            self.text.push_str("...");
            self.truncated = true;
        }
        if let Some(file) = file
            && self.seen.insert(&file.path)
        {
            self.visible.push(file.path.clone());
        }
        fits
    }
}

/// The first `limit` hits in search order, grouped by file the way
/// `reduce` into `{}` groups them: array-index keys first, ascending, then
/// the other keys in insertion order.
fn group_like_a_js_object(files: &[FileHits], limit: usize) -> Vec<(&FileHits, &[Hit])> {
    let mut left = limit;
    let mut groups: Vec<(&FileHits, &[Hit])> = Vec::new();
    for file in files {
        if left == 0 {
            break;
        }
        let take = file.hits.len().min(left);
        left -= take;
        groups.push((file, file.hits.get(..take).unwrap_or_default()));
    }
    groups.sort_by_key(|(file, _)| array_index(&file.rel).map_or((1, 0), |i| (0, i)));
    groups
}

/// The value of `key` if JavaScript treats it as an array index: a
/// canonical decimal below 2³² − 1.
fn array_index(key: &str) -> Option<u64> {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
    if !canonical || !key.bytes().all(|b| b.is_ascii_digit()) || key.len() > 10 {
        return None;
    }
    key.parse::<u64>().ok().filter(|&i| i < u64::from(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(rel: &str, hits: &[(u64, &str)]) -> FileHits {
        FileHits {
            rel: rel.to_owned(),
            path: PathBuf::from("/r").join(rel),
            hits: hits
                .iter()
                .map(|&(line_number, line)| Hit {
                    line_number,
                    line: line.to_owned(),
                })
                .collect(),
        }
    }

    #[test]
    fn array_index_keys_like_v8() {
        for (key, index) in [
            ("0", Some(0)),
            ("5", Some(5)),
            ("123", Some(123)),
            ("05", None),
            ("1.5", None),
            ("4294967295", None),
            ("4294967294", Some(4_294_967_294)),
            ("", None),
            ("a1", None),
        ] {
            assert_eq!(array_index(key), index, "{key}");
        }
    }

    /// What the model reads of `files` found for `p` across the workspace,
    /// within `chars` characters.
    fn render_within(files: &[FileHits], chars: usize) -> Rendered {
        let budget = Budget { chars, lines: 100 };
        render("p", "in the workspace directory", None, files, budget)
    }

    #[test]
    fn the_cut_is_counted_as_qwen_counts_it() {
        // Budget 20 units: "File: a\n" (8) + "L1: x\n" (6) fit, "L2: yyyy\n" (9) does not:
        // 6 units of it and "..." are shown, so two lines count as included.
        let files = [file("a", &[(1, "x"), (2, "yyyy"), (3, "z")])];
        let r = render_within(&files, 20);
        assert_eq!(
            r.llm_content,
            "Found 3 matches for pattern \"p\" in the workspace directory:\n---\nFile: a\nL1: x\nL2: yy... [1 line truncated] ..."
        );
        assert_eq!(r.display, "Found 3 matches (truncated)");
        assert_eq!(r.visible, [PathBuf::from("/r/a")]);
    }

    #[test]
    fn a_zero_budget_cuts_the_first_header_to_nothing() {
        let files = [file("a", &[(1, "x")])];
        let r = render_within(&files, 0);
        // "..." alone is a line Qwen counts as included, so nothing is "omitted".
        assert!(
            r.llm_content.ends_with("---\n... [0 lines truncated] ..."),
            "{}",
            r.llm_content
        );
        assert!(r.visible.is_empty());
    }
}
