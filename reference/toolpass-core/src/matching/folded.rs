//! The folded substring tier: `fold(haystack).indexOf(fold(needle))`,
//! answered in the coordinates of the unfolded haystack.

use std::ops::Range;

use memchr::memmem;

use crate::fold::{fold_char, is_fold_stable};

/// Finds the first range of `haystack` whose folded text equals the folded
/// `needle`. Call it only after the literal search failed.
pub(super) fn find(haystack: &str, needle: &str) -> Option<Range<usize>> {
    let anchor = longest_stable_run(needle);
    if anchor.len() == needle.len() {
        // Nothing in the needle can fold or be folded to, so a folded match
        // would be a literal one, and the literal search already failed.
        return None;
    }
    let (before, rest) = needle.split_at_checked(anchor.start)?;
    let (anchor_text, after) = rest.split_at_checked(anchor.len())?;
    if anchor_text.is_empty() {
        return scan_every_boundary(haystack, needle);
    }
    let finder = memmem::Finder::new(anchor_text.as_bytes());
    let mut from = 0;
    while let Some(offset) = haystack.as_bytes().get(from..).and_then(|h| finder.find(h)) {
        let hit = from + offset;
        // A hit of a valid UTF-8 needle in valid UTF-8 text starts and ends on
        // char boundaries, so both sides below split cleanly.
        let start = haystack
            .get(..hit)
            .and_then(|head| match_backward(head, before));
        let end = haystack
            .get(hit + anchor_text.len()..)
            .and_then(|tail| match_forward(tail, after))
            .map(|len| hit + anchor_text.len() + len);
        if let (Some(start), Some(end)) = (start, end) {
            return Some(start..end);
        }
        from = hit + 1;
    }
    None
}

/// The byte range of the needle's longest run of fold-stable characters.
///
/// Such a run appears byte for byte in every folded match (see
/// [`is_fold_stable`]), which makes it a safe `memmem` anchor.
pub(super) fn longest_stable_run(text: &str) -> Range<usize> {
    let mut best = 0..0;
    let mut run_start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if i < text.len() && is_fold_stable(c) {
            run_start.get_or_insert(i);
        } else if let Some(start) = run_start.take()
            && i - start > best.len()
        {
            best = start..i;
        }
    }
    best
}

/// For a needle made only of foldable characters (say `“—”`): tries every
/// char boundary. Quadratic in the worst case, like Qwen's `indexOf`, but
/// such needles are a few characters long.
fn scan_every_boundary(haystack: &str, needle: &str) -> Option<Range<usize>> {
    haystack.char_indices().find_map(|(i, _)| {
        let tail = haystack.get(i..)?;
        match_forward(tail, needle).map(|len| i..i + len)
    })
}

/// Matches `pattern` at the start of `text` under the fold; returns how many
/// bytes of `text` it covered.
fn match_forward(text: &str, pattern: &str) -> Option<usize> {
    let mut text_chars = text.chars();
    let mut covered = 0;
    for p in pattern.chars() {
        let t = text_chars.next()?;
        if fold_char(t) != fold_char(p) {
            return None;
        }
        covered += t.len_utf8();
    }
    Some(covered)
}

/// Matches `pattern` at the end of `text` under the fold; returns where in
/// `text` the match starts.
fn match_backward(text: &str, pattern: &str) -> Option<usize> {
    let mut text_chars = text.chars().rev();
    let mut start = text.len();
    for p in pattern.chars().rev() {
        let t = text_chars.next()?;
        if fold_char(t) != fold_char(p) {
            return None;
        }
        start -= t.len_utf8();
    }
    Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_is_the_longest_run_free_of_fold_characters() {
        let needle = "let s = ‘hello_world’;";
        assert_eq!(&needle[longest_stable_run(needle)], "hello_world");
        assert_eq!(longest_stable_run("“—”"), 0..0);
        assert_eq!(longest_stable_run(""), 0..0);
        assert_eq!(longest_stable_run("abc"), 0..3);
    }

    #[test]
    fn maps_offsets_when_the_file_has_wider_characters_than_the_needle() {
        // Three-byte characters on both sides of the match, and inside it.
        let hay = "é’x — it’s “here” — ok’";
        let range = find(hay, "it's \"here\"").unwrap();
        assert_eq!(&hay[range], "it’s “here”");
    }

    #[test]
    fn maps_offsets_when_the_needle_has_wider_characters_than_the_file() {
        let hay = "a 'b' c";
        let range = find(hay, "‘b’").unwrap();
        assert_eq!(&hay[range], "'b'");
    }

    #[test]
    fn needle_without_any_anchor_scans_boundaries() {
        let hay = "x “—” y";
        let range = find(hay, "\"-\"").unwrap();
        assert_eq!(&hay[range], "“—”");
    }

    #[test]
    fn first_match_wins_even_when_its_anchor_is_not_the_first_anchor_hit() {
        // The anchor "ab" first appears where the surroundings do not match.
        let hay = "xab’ ‘ab’";
        let range = find(hay, "'ab'").unwrap();
        assert_eq!(&hay[range], "‘ab’");
    }
}
