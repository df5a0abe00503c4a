//! The excerpt shown to the model after an edit: Qwen Code's
//! `extractEditSnippet` (`packages/core/src/utils/editHelper.ts`).
//!
//! The changed region is found by comparing lines from both ends; the excerpt
//! is that region with four lines of context on each side. A change of more
//! than a thousand lines gets no excerpt.

/// Lines of context on each side of the changed region.
pub const SNIPPET_CONTEXT_LINES: usize = 4;
/// Above this many changed lines, no snippet.
pub const SNIPPET_MAX_LINES: usize = 1000;

/// An excerpt of the edited file. Line numbers are 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// First line of the excerpt.
    pub start_line: usize,
    /// Last line of the excerpt.
    pub end_line: usize,
    /// Lines in the whole new content (`split('\n').length`).
    pub total_lines: usize,
    /// The excerpt's lines joined with `\n`.
    pub content: String,
}

impl Snippet {
    /// The text Qwen appends to its success message.
    #[must_use]
    pub fn message(&self) -> String {
        format!(
            "Showing lines {}-{} of {} from the edited file:\n\n---\n\n{}",
            self.start_line, self.end_line, self.total_lines, self.content
        )
    }
}

/// Qwen's `extractEditSnippet`. `old` is `None` for a new file, whose
/// snippet is the whole content.
#[must_use]
pub fn extract_edit_snippet(old: Option<&str>, new: &str) -> Option<Snippet> {
    let new_lines: Vec<&str> = new.split('\n').collect();
    let total_lines = new_lines.len();
    let Some(old) = old else {
        return Some(Snippet {
            start_line: 1,
            end_line: total_lines,
            total_lines,
            content: new.to_owned(),
        });
    };
    if old == new || new.is_empty() {
        return None;
    }
    let old_lines: Vec<&str> = old.split('\n').collect();

    let first_diff = old_lines
        .iter()
        .zip(&new_lines)
        .take_while(|(a, b)| a == b)
        .count();
    // Lines equal from the end, never reaching back past `first_diff` on
    // either side.
    let room = old_lines.len().min(new_lines.len()) - first_diff;
    let common_suffix = old_lines
        .iter()
        .rev()
        .zip(new_lines.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();

    // 1-based, inclusive; `change_end` is one less than `change_start` when
    // lines were only removed.
    let change_start = first_diff + 1;
    let change_end = total_lines - common_suffix;
    if change_end.saturating_sub(change_start) > SNIPPET_MAX_LINES {
        return None;
    }
    let start_line = change_start.saturating_sub(SNIPPET_CONTEXT_LINES).max(1);
    let end_line = (change_end + SNIPPET_CONTEXT_LINES).min(total_lines);
    let content = new_lines
        .get(start_line - 1..end_line)
        .unwrap_or_default()
        .join("\n");
    Some(Snippet {
        start_line,
        end_line,
        total_lines,
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The snippet after replacing `from` with `to` in `numbered(n)`.
    fn check(n: usize, from: &str, to: &str) -> Snippet {
        let old = numbered(n);
        extract_edit_snippet(Some(&old), &old.replace(from, to)).unwrap()
    }

    #[test]
    fn new_file_shows_everything() {
        let s = extract_edit_snippet(None, "a\nb\n").unwrap();
        assert_eq!((s.start_line, s.end_line, s.total_lines), (1, 3, 3));
        assert_eq!(s.content, "a\nb\n");
    }

    #[test]
    fn no_change_or_empty_result_has_no_snippet() {
        assert_eq!(extract_edit_snippet(Some("a"), "a"), None);
        assert_eq!(extract_edit_snippet(Some("a"), ""), None);
    }

    #[test]
    fn one_changed_line_gets_four_lines_of_context() {
        let s = check(20, "line 10", "LINE TEN");
        assert_eq!((s.start_line, s.end_line, s.total_lines), (6, 14, 20));
        insta::assert_snapshot!(s.message());
    }

    #[test]
    fn context_is_clamped_at_both_ends() {
        let s = check(3, "line 2", "two");
        assert_eq!((s.start_line, s.end_line), (1, 3));
    }

    #[test]
    fn a_deletion_shows_the_lines_around_the_gap() {
        let s = check(12, "line 6\n", "");
        // Change region is empty (start 6, end 5): context 2..9 of 11 lines.
        assert_eq!((s.start_line, s.end_line, s.total_lines), (2, 9, 11));
        assert_eq!(
            s.content,
            "line 2\nline 3\nline 4\nline 5\nline 7\nline 8\nline 9\nline 10"
        );
    }

    #[test]
    fn repeated_lines_do_not_make_the_regions_overlap() {
        let s = extract_edit_snippet(Some("a\na"), "a\na\na").unwrap();
        assert_eq!((s.start_line, s.end_line, s.total_lines), (1, 3, 3));
    }

    #[test]
    fn more_than_a_thousand_changed_lines_get_no_snippet() {
        let old = numbered(1100);
        let new: String = old.lines().map(|l| format!("{l}!\n")).collect();
        assert_eq!(extract_edit_snippet(Some(&old), &new), None);
        // Exactly 1001 changed lines (end - start = 1000) still get one.
        let s = check(1001, "line", "LINE");
        assert_eq!((s.start_line, s.end_line), (1, 1001));
    }
}
