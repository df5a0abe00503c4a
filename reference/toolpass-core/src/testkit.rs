//! Slow, obviously-correct models of the fast code, and the property checks
//! the fuzz targets and the proptests share.
//!
//! The models transcribe Qwen Code's TypeScript as literally as Rust allows:
//! whole-string folds, `split('\n')` into vectors, index loops over every
//! position. They are quadratic and allocate freely; that is the point. The
//! fast code must agree with them on every input.
//!
//! Compiled for unit tests and behind the `testkit` feature (for `fuzz/`);
//! never part of a normal build.

// The models index freely: they are literal transcriptions, and a panic in
// one is a bug the smoke test reports.
#![allow(clippy::indexing_slicing)]

use std::ops::Range;

pub mod budget;
pub mod sed;
pub mod shell_read_only;
pub mod tool_name;
pub mod tool_search;

use crate::fold::{fold_char, is_js_whitespace};
use crate::matching::{LinePass, MatchTier, SliceMatch, find_matched_slice};

/// The model of [`find_matched_slice`]: Qwen's `findMatchedSlice` over
/// vectors of chars. JavaScript indexes UTF-16 units; the fold maps one BMP
/// unit to one BMP unit, so char indices here play the same role.
#[must_use]
pub fn model_find_matched_slice(haystack: &str, needle: &str) -> Option<SliceMatch> {
    if needle.is_empty() {
        return None;
    }
    let hay: Vec<char> = haystack.chars().collect();
    let pat: Vec<char> = needle.chars().collect();
    let to_bytes = |chars: Range<usize>| char_range_to_bytes(haystack, chars);

    if let Some(i) = index_of(&hay, &pat) {
        return Some(SliceMatch::new(
            to_bytes(i..i + pat.len()),
            MatchTier::Literal,
        ));
    }
    let folded_hay: Vec<char> = hay.iter().copied().map(fold_char).collect();
    let folded_pat: Vec<char> = pat.iter().copied().map(fold_char).collect();
    if let Some(i) = index_of(&folded_hay, &folded_pat) {
        return Some(SliceMatch::new(
            to_bytes(i..i + pat.len()),
            MatchTier::Folded,
        ));
    }
    model_line_based(&hay, &pat).map(|(chars, pass, removed)| SliceMatch {
        range: to_bytes(chars),
        tier: MatchTier::Lines(pass),
        removed_trailing_final_empty_line: removed,
    })
}

fn index_of(hay: &[char], pat: &[char]) -> Option<usize> {
    if pat.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - pat.len()).find(|&i| hay.get(i..i + pat.len()) == Some(pat))
}

fn split_lines(text: &[char]) -> Vec<Vec<char>> {
    text.split(|&c| c == '\n').map(<[char]>::to_vec).collect()
}

fn trim_end(line: &[char]) -> Vec<char> {
    let mut line = line.to_vec();
    while line.last().is_some_and(|&c| is_js_whitespace(c)) {
        line.pop();
    }
    line
}

fn transform(pass: LinePass, line: &[char]) -> Vec<char> {
    match pass {
        LinePass::Exact => line.to_vec(),
        LinePass::TrimEnd => trim_end(line),
        LinePass::FoldTrimEnd => {
            let folded: Vec<char> = line.iter().copied().map(fold_char).collect();
            trim_end(&folded)
        }
    }
}

/// Qwen's `seekSequenceWithTransform` for each pass in order.
fn attempt(lines: &[Vec<char>], pattern: &[Vec<char>]) -> Option<(usize, LinePass)> {
    for pass in [LinePass::Exact, LinePass::TrimEnd, LinePass::FoldTrimEnd] {
        if pattern.len() > lines.len() {
            return None;
        }
        let hit = (0..=lines.len() - pattern.len()).find(|&i| {
            pattern
                .iter()
                .zip(&lines[i..])
                .all(|(p, l)| transform(pass, l) == transform(pass, p))
        });
        if let Some(i) = hit {
            return Some((i, pass));
        }
    }
    None
}

/// Qwen's `findLineBasedMatch`, returning a char range.
fn model_line_based(hay: &[char], pat: &[char]) -> Option<(Range<usize>, LinePass, bool)> {
    let lines = split_lines(hay);
    let mut offsets = Vec::with_capacity(lines.len() + 1);
    let mut cursor = 0;
    for (i, line) in lines.iter().enumerate() {
        offsets.push(cursor);
        cursor += line.len() + usize::from(i + 1 < lines.len());
    }
    offsets.push(hay.len());
    let slice = |start_line: usize, count: usize, with_newline: bool| {
        let start = offsets[start_line];
        let last = start_line + count - 1;
        let mut end = offsets[last] + lines[last].len();
        if with_newline {
            end = offsets[start_line + count];
        }
        start..end
    };

    let pattern = split_lines(pat);
    let ends_with_newline = pat.last() == Some(&'\n');
    if let Some((i, pass)) = attempt(&lines, &pattern) {
        let count = pattern.len() - usize::from(ends_with_newline);
        return Some((slice(i, count, ends_with_newline), pass, false));
    }
    if pattern.last().is_some_and(Vec::is_empty) {
        let trimmed = &pattern[..pattern.len() - 1];
        if trimmed.is_empty() {
            return None;
        }
        if let Some((i, pass)) = attempt(&lines, trimmed) {
            return Some((slice(i, trimmed.len(), false), pass, true));
        }
    }
    None
}

fn char_range_to_bytes(text: &str, chars: Range<usize>) -> Range<usize> {
    let byte_at = |n: usize| text.char_indices().nth(n).map_or(text.len(), |(b, _)| b);
    byte_at(chars.start)..byte_at(chars.end)
}

/// The property the matcher fuzz target checks: the fast matcher agrees with
/// the model, and its range is a real slice of the haystack.
///
/// # Errors
/// A description of the disagreement.
pub fn check_matcher(haystack: &str, needle: &str) -> Result<(), String> {
    let fast = find_matched_slice(haystack, needle);
    let slow = model_find_matched_slice(haystack, needle);
    if fast != slow {
        return Err(format!(
            "matcher disagrees with the model\n haystack: {haystack:?}\n needle: {needle:?}\n fast: {fast:?}\n model: {slow:?}"
        ));
    }
    if let Some(m) = fast
        && haystack.get(m.range.clone()).is_none()
    {
        return Err(format!(
            "range {:?} is not a slice of {haystack:?}",
            m.range
        ));
    }
    Ok(())
}

/// Characters fuzz inputs are drawn from: a small alphabet heavy in what the
/// matcher treats specially (newlines, trailing whitespace, the fold table,
/// JavaScript-only whitespace, multibyte text).
pub const MATCHER_ALPHABET: &[char] = &[
    'a', 'b', 'c', ' ', ' ', '\n', '\n', '\t', '\r', '-', '\'', '"', '’', '‘', '“', '”', '—', '–',
    '\u{00A0}', '\u{3000}', '\u{FEFF}', '\u{0085}', 'é', '好', '😀', '}',
];

/// Decodes fuzz bytes into a `(haystack, needle)` pair over
/// [`MATCHER_ALPHABET`]: the first byte picks where the needle starts, the
/// rest map to characters, and a needle copied from the haystack is likely
/// enough that every tier gets exercised.
#[must_use]
pub fn matcher_input(data: &[u8]) -> (String, String) {
    let Some((&split, rest)) = data.split_first() else {
        return (String::new(), String::new());
    };
    let len = MATCHER_ALPHABET.len();
    let text: String = rest
        .iter()
        .filter_map(|&b| MATCHER_ALPHABET.get(usize::from(b) % len))
        .collect();
    let chars: Vec<char> = text.chars().collect();
    let cut = usize::from(split) % (chars.len() + 1);
    let (hay, tail) = chars.split_at(cut);
    // The needle is the tail, lightly mutated by the bytes' high bits so it
    // sometimes differs from the haystack only by a fold or a space.
    let needle: String = tail
        .iter()
        .zip(rest.iter().skip(cut))
        .map(|(&c, &b)| match b >> 6 {
            3 => crate::fold::fold_char(c),
            _ => c,
        })
        .collect();
    let haystack: String = hay.iter().chain(tail.iter()).collect();
    (haystack, needle)
}

/// Fuzz entry point for the matcher: panics (the fuzzer's failure signal)
/// when [`check_matcher`] finds a disagreement.
#[allow(clippy::panic)] // A fuzz oracle reports failure by panicking.
pub fn fuzz_matcher(data: &[u8]) {
    let (haystack, needle) = matcher_input(data);
    if let Err(message) = check_matcher(&haystack, &needle) {
        panic!("{message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the fuzz target's logic over a deterministic spread of inputs,
    /// so `cargo test` exercises the property without the fuzzer.
    #[test]
    fn smoke() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for round in 0..3000 {
            let len = 2 + round % 40;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    // xorshift: deterministic and dependency-free.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state.to_le_bytes()[0]
                })
                .collect();
            fuzz_matcher(&data);
        }
    }

    #[test]
    fn model_agrees_with_qwen_on_its_own_examples() {
        // upstream: editHelper.test.ts "normalizes smart quotes to match on-disk text"
        let hay = "const greeting = 'Don't';\n";
        let m = model_find_matched_slice(hay, "const greeting = ‘Don’t’;").unwrap();
        assert_eq!(m.slice(hay), "const greeting = 'Don't';");
        assert_eq!(m.tier, MatchTier::Folded);
    }
}
