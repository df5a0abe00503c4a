//! The folded substring tier: `fold(haystack).indexOf(fold(needle))`,
//! answered in the coordinates of the unfolded haystack.
//!
//! The fast path searches for the needle's longest fold-stable run with
//! `memmem` and verifies around each hit. On repetitive text every hit can
//! cost a needle's length of verification, which is quadratic; once the
//! verification spent exceeds a budget proportional to the file, the search
//! switches to a Knuth–Morris–Pratt scan over folded characters, which is
//! linear whatever the input.

use std::collections::VecDeque;
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
        return scan_linear(haystack, needle);
    }
    let finder = memmem::Finder::new(anchor_text.as_bytes());
    let mut from = 0;
    // Hits may cost this many bytes of comparison before the linear scan
    // takes over: a few passes over the file, plus room for short files.
    let mut budget = haystack.len().saturating_mul(4).saturating_add(1 << 16);
    while let Some(offset) = haystack.as_bytes().get(from..).and_then(|h| finder.find(h)) {
        let hit = from + offset;
        // Each hit costs about a needle's length: memmem confirmed the
        // anchor, and the verification walks the rest.
        budget = match budget.checked_sub(needle.len()) {
            Some(left) => left,
            None => return scan_linear(haystack, needle),
        };
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

/// The first folded match by Knuth–Morris–Pratt over folded characters:
/// linear in the haystack, with memory proportional to the needle only.
fn scan_linear(haystack: &str, needle: &str) -> Option<Range<usize>> {
    let pattern: Vec<char> = needle.chars().map(fold_char).collect();
    let failure = failure_table(&pattern);
    // Byte offsets of the last `pattern.len()` characters seen, so a match
    // ending here knows where it started.
    let mut recent: VecDeque<usize> = VecDeque::with_capacity(pattern.len());
    let mut matched = 0;
    for (at, c) in haystack.char_indices() {
        if recent.len() == pattern.len() {
            recent.pop_front();
        }
        recent.push_back(at);
        let folded = fold_char(c);
        while matched > 0 && pattern.get(matched) != Some(&folded) {
            matched = failure.get(matched - 1).copied().unwrap_or(0);
        }
        if pattern.get(matched) == Some(&folded) {
            matched += 1;
        }
        if matched == pattern.len() {
            return recent.front().map(|&start| start..at + c.len_utf8());
        }
    }
    None
}

/// KMP's failure function: for each prefix of `pattern`, the length of its
/// longest proper prefix that is also a suffix.
fn failure_table(pattern: &[char]) -> Vec<usize> {
    let mut failure = vec![0; pattern.len()];
    let mut k = 0;
    for (i, c) in pattern.iter().enumerate().skip(1) {
        while k > 0 && pattern.get(k) != Some(c) {
            k = failure.get(k - 1).copied().unwrap_or(0);
        }
        if pattern.get(k) == Some(c) {
            k += 1;
        }
        if let Some(slot) = failure.get_mut(i) {
            *slot = k;
        }
    }
    failure
}

/// Matches `pattern` at the start of `text` under the fold; returns how many
/// bytes of `text` it covered.
fn match_forward(text: &str, pattern: &str) -> Option<usize> {
    covered_by(text.chars(), pattern.chars())
}

/// Matches `pattern` at the end of `text` under the fold; returns where in
/// `text` the match starts.
fn match_backward(text: &str, pattern: &str) -> Option<usize> {
    covered_by(text.chars().rev(), pattern.chars().rev()).map(|covered| text.len() - covered)
}

/// Walks `text` alongside `pattern`, comparing folded characters; returns the
/// bytes of `text` consumed when every pattern character matched.
fn covered_by(
    mut text: impl Iterator<Item = char>,
    pattern: impl Iterator<Item = char>,
) -> Option<usize> {
    pattern.map(fold_char).try_fold(0, |covered, p| {
        let t = text.next()?;
        (fold_char(t) == p).then_some(covered + t.len_utf8())
    })
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

    /// Asserts the folded tier finds `expected` for `needle` in `hay`.
    fn check(hay: &str, needle: &str, expected: &str) {
        let range = find(hay, needle).unwrap();
        assert_eq!(&hay[range], expected, "{needle:?} in {hay:?}");
    }

    #[test]
    fn maps_offsets_between_narrow_and_wide_characters() {
        // Three-byte characters on both sides of the match, and inside it.
        check("é’x — it’s “here” — ok’", "it's \"here\"", "it’s “here”");
        // The needle has the wide characters, the file the narrow ones.
        check("a 'b' c", "‘b’", "'b'");
    }

    #[test]
    fn the_linear_scan_agrees_with_the_anchor_search() {
        for (hay, needle) in [
            ("é’x — it’s “here” — ok’", "it's \"here\""),
            ("aab’aaab’", "aab'"),
            ("abababac’", "ababac'"),
            ("x “—” y", "\"-\""),
            ("no match here", "it's"),
        ] {
            assert_eq!(
                scan_linear(hay, needle),
                find(hay, needle),
                "{needle:?} in {hay:?}"
            );
        }
    }

    #[test]
    fn repetitive_text_does_not_make_the_search_quadratic() {
        // Reported from the benches: every position is an anchor hit that
        // fails only at the needle's last character. The budget hands over to
        // the linear scan; this finishes in milliseconds, not seconds.
        let hay = "a".repeat(1 << 20);
        let needle = "a".repeat(10_000) + "’";
        assert_eq!(find(&hay, &needle), None);
        let hay = format!("{}'", "a".repeat(1 << 20));
        let m = find(&hay, &needle).unwrap();
        assert_eq!(m, hay.len() - 10_001..hay.len());
    }

    #[test]
    fn needle_without_any_anchor_scans_boundaries() {
        check("x “—” y", "\"-\"", "“—”");
    }

    #[test]
    fn first_match_wins_even_when_its_anchor_is_not_the_first_anchor_hit() {
        // The anchor "ab" first appears where the surroundings do not match.
        check("xab’ ‘ab’", "'ab'", "‘ab’");
    }
}
