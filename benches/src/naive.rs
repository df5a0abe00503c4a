//! The matcher chain written the obvious way, as the benches' baseline.
//!
//! Same answers as [`find_matched_slice`](toolpass_core::matching::find_matched_slice)
//! (the tests below hold it to that), obtained the way a first version would:
//!
//! - the literal tier is `str::find`;
//! - the folded tier folds the whole file into a new `String`, with a `Vec`
//!   mapping each folded byte back to its original offset;
//! - the line tiers `split('\n')` the file into a `Vec`, then run each pass
//!   over every window in turn, the way Codex's `seek_sequence`
//!   (`codex-rs/apply-patch/src/seek_sequence.rs`) and Qwen's
//!   `seekSequenceWithTransform` do: exact and trimEnd compare slices, and
//!   fold+trimEnd builds a folded `String` for each line on each side of
//!   every comparison.
//!
//! Trimming uses JavaScript's `trimEnd` and the fold is toolpass-core's, so
//! the baseline differs from the fast matcher only in how it does the work.

use std::ops::Range;

use toolpass_core::fold::{fold_char, fold_str, trim_end_js};
use toolpass_core::matching::{LinePass, MatchTier, SliceMatch};

/// Finds the slice of `haystack` that `needle` refers to, like
/// [`find_matched_slice`](toolpass_core::matching::find_matched_slice), the
/// slow way.
#[must_use]
pub fn naive_find_matched_slice(haystack: &str, needle: &str) -> Option<SliceMatch> {
    if needle.is_empty() {
        return None;
    }
    if let Some(start) = haystack.find(needle) {
        return Some(SliceMatch::new(
            start..start + needle.len(),
            MatchTier::Literal,
        ));
    }
    let (folded, origin) = fold_with_offsets(haystack);
    let folded_needle = fold_str(needle);
    if let Some(start) = folded.find(&folded_needle) {
        let range = origin[start]..origin[start + folded_needle.len()];
        return Some(SliceMatch::new(range, MatchTier::Folded));
    }
    line_based(haystack, needle)
}

/// Folds `text`, returning the folded text and, for each of its bytes (and
/// its end), the offset in `text` of the character that byte came from.
fn fold_with_offsets(text: &str) -> (String, Vec<usize>) {
    let mut folded = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    for (offset, c) in text.char_indices() {
        let f = fold_char(c);
        folded.push(f);
        origin.extend(std::iter::repeat_n(offset, f.len_utf8()));
    }
    origin.push(text.len());
    (folded, origin)
}

/// Qwen's `findLineBasedMatch`: the whole needle's lines, then the needle
/// without its trailing empty line.
fn line_based(haystack: &str, needle: &str) -> Option<SliceMatch> {
    let lines: Vec<&str> = haystack.split('\n').collect();
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut cursor = 0;
    for line in &lines {
        starts.push(cursor);
        cursor += line.len() + 1;
    }
    starts.push(haystack.len());
    let window = |first: usize, count: usize, with_newline: bool| -> Range<usize> {
        let last = first + count - 1;
        let end = if with_newline {
            starts[first + count]
        } else {
            starts[last] + lines[last].len()
        };
        starts[first]..end
    };

    let pattern: Vec<&str> = needle.split('\n').collect();
    let ends_with_newline = needle.ends_with('\n');
    if let Some((first, pass)) = seek_sequence(&lines, &pattern) {
        let count = pattern.len() - usize::from(ends_with_newline);
        return Some(SliceMatch {
            range: window(first, count, ends_with_newline),
            tier: MatchTier::Lines(pass),
            removed_trailing_final_empty_line: false,
        });
    }
    let (last, trimmed) = pattern.split_last()?;
    if !last.is_empty() || trimmed.is_empty() {
        return None;
    }
    let (first, pass) = seek_sequence(&lines, trimmed)?;
    Some(SliceMatch {
        range: window(first, trimmed.len(), false),
        tier: MatchTier::Lines(pass),
        removed_trailing_final_empty_line: true,
    })
}

/// Each pass over every window, strictest pass first; the first window of
/// the first pass that matches anywhere.
fn seek_sequence(lines: &[&str], pattern: &[&str]) -> Option<(usize, LinePass)> {
    if pattern.len() > lines.len() {
        return None;
    }
    let windows = 0..=lines.len() - pattern.len();
    let find = |same: &dyn Fn(&str, &str) -> bool| {
        windows.clone().find(|&i| {
            pattern
                .iter()
                .zip(&lines[i..])
                .all(|(expected, actual)| same(actual, expected))
        })
    };
    let exact = |a: &str, b: &str| a == b;
    let trim_end = |a: &str, b: &str| trim_end_js(a) == trim_end_js(b);
    let fold_trim_end = |a: &str, b: &str| trim_end_js(&fold_str(a)) == trim_end_js(&fold_str(b));
    find(&exact)
        .map(|i| (i, LinePass::Exact))
        .or_else(|| find(&trim_end).map(|i| (i, LinePass::TrimEnd)))
        .or_else(|| find(&fold_trim_end).map(|i| (i, LinePass::FoldTrimEnd)))
}

#[cfg(test)]
mod tests {
    use toolpass_core::matching::find_matched_slice;

    use super::*;
    use crate::input::{Case, code_like_text};

    /// The baseline and toolpass-core agree on `needle` in `haystack`.
    fn check(haystack: &str, needle: &str) {
        assert_eq!(
            naive_find_matched_slice(haystack, needle),
            find_matched_slice(haystack, needle),
            "haystack: {haystack:?}\nneedle: {needle:?}"
        );
    }

    #[test]
    fn agrees_with_toolpass_on_every_bench_case_at_4kib() {
        let file = code_like_text(4 << 10);
        for case in Case::ALL {
            let needle = case.needle(&file);
            let naive = naive_find_matched_slice(&file, &needle);
            assert_eq!(
                naive.as_ref().map(|m| m.tier),
                case.expected_tier(),
                "{case}"
            );
            assert_eq!(naive, find_matched_slice(&file, &needle), "{case}");
        }
    }

    #[test]
    fn agrees_with_toolpass_on_each_tier() {
        use LinePass::{Exact, FoldTrimEnd, TrimEnd};
        use MatchTier::{Folded, Lines, Literal};
        let file = "fn a() {\n    let s = ‘x’;   \n\tgo(“y”) — ok\n    say('hi') - fine\n}";
        let cases = [
            ("let s = ‘x’;", Some(Literal)),
            // The file has wider characters than the needle, then narrower.
            ("go(\"y\") - ok", Some(Folded)),
            ("say(‘hi’) — fine\n}", Some(Folded)),
            ("    let s = ‘x’;\n\tgo(“y”) — ok\n", Some(Lines(TrimEnd))),
            (
                "    let s = 'x';\n\tgo(\"y\") - ok",
                Some(Lines(FoldTrimEnd)),
            ),
            // Found only without the needle's trailing empty line.
            ("    say('hi') - fine\n}\n", Some(Lines(Exact))),
            // Leading whitespace is never relaxed.
            ("let s = 'x';\ngo(\"y\") - ok\n", None),
            ("fn b() {\n", None),
            ("", None),
            ("\n\n\n\n\n\n", None),
            ("‘", Some(Literal)),
            ("'", Some(Literal)),
            ("\"", Some(Folded)),
        ];
        for (needle, tier) in cases {
            check(file, needle);
            let found = naive_find_matched_slice(file, needle).map(|m| m.tier);
            assert_eq!(found, tier, "{needle:?}");
        }
    }

    #[test]
    fn agrees_with_toolpass_on_generated_small_inputs() {
        const ALPHABET: &[char] = &[
            'a', 'b', ' ', ' ', '\n', '\n', '\t', '\r', '-', '\'', '"', '’', '“', '—', '\u{a0}',
            '\u{3000}', '\u{feff}', '\u{85}', 'é', '}',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % 1024).unwrap_or(0)
        };
        let mut seen = std::collections::HashSet::new();
        for _ in 0..5000 {
            let hay_len = next() % 24;
            let haystack: String = (0..hay_len)
                .map(|_| ALPHABET[next() % ALPHABET.len()])
                .collect();
            let chars: Vec<char> = haystack.chars().collect();
            // Half the needles are cut from the haystack and lightly folded,
            // so the fuzzy tiers have something to find.
            let needle: String = if next() % 2 == 0 && !chars.is_empty() {
                let start = next() % chars.len();
                let end = start + next() % (chars.len() - start + 1);
                chars[start..end]
                    .iter()
                    .filter_map(|&c| match next() % 8 {
                        0 => None,
                        1 | 2 => Some(fold_char(c)),
                        _ => Some(c),
                    })
                    .collect()
            } else {
                (0..next() % 6)
                    .map(|_| ALPHABET[next() % ALPHABET.len()])
                    .collect()
            };
            check(&haystack, &needle);
            if let Some(m) = find_matched_slice(&haystack, &needle) {
                seen.insert((m.tier, m.removed_trailing_final_empty_line));
            }
        }
        // Every tier, and the retry, answered some of the inputs.
        assert!(seen.len() >= 6, "{seen:?}");
    }
}
