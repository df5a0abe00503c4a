//! The order of JavaScript's `a.localeCompare(b)` under Node's ICU with an
//! English locale (CLDR root collation), which Qwen's `ls` sorts names by.
//!
//! Exact for ASCII names: punctuation and symbols first in CLDR's order,
//! then digits, then letters case-insensitively, with lowercase before
//! uppercase only as a tie-break over the whole name. Other characters sort
//! after ASCII letters by their lowercase code point, without ICU's
//! accent folding: an approximation, not a port of ICU.

use std::cmp::Ordering;

/// Printable ASCII in CLDR root order; letters come in lower/upper pairs
/// that share a primary weight.
const ASCII_ORDER: &[u8] =
    b" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";

/// The primary and tertiary weight of one character; `None` for the
/// controls ICU ignores.
fn weights(c: char) -> Option<(u32, u8)> {
    if c.is_ascii() {
        let b = u8::try_from(u32::from(c)).ok()?;
        let pos = ASCII_ORDER.iter().position(|&x| x == b)?;
        let pos = u32::try_from(pos).ok()?;
        if b.is_ascii_alphabetic() {
            // One primary per lower/upper pair.
            let first_letter = ASCII_ORDER.iter().position(|&x| x == b'a')?;
            let first_letter = u32::try_from(first_letter).ok()?;
            let primary = first_letter + (pos - first_letter) / 2;
            Some((primary, u8::from(b.is_ascii_uppercase())))
        } else {
            Some((pos, 0))
        }
    } else if c.is_control() {
        None
    } else {
        let lower = c.to_lowercase().next().unwrap_or(c);
        Some((1000 + u32::from(lower), u8::from(lower != c)))
    }
}

/// `a.localeCompare(b)`: primary weights over the whole names first, then
/// case.
pub(crate) fn locale_cmp(a: &str, b: &str) -> Ordering {
    let wa: Vec<(u32, u8)> = a.chars().filter_map(weights).collect();
    let wb: Vec<(u32, u8)> = b.chars().filter_map(weights).collect();
    let primary = wa.iter().map(|w| w.0).cmp(wb.iter().map(|w| w.0));
    primary.then_with(|| wa.iter().map(|w| w.1).cmp(wb.iter().map(|w| w.1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        v.sort_by(|a, b| locale_cmp(a, b));
        v
    }

    #[test]
    fn matches_node_icu_for_ascii_names() {
        // Node 20 (ICU 78, en-US):
        // ["a-b","ab","a_b","a.b","aB","Ab","ab1","a10","a9"].sort(localeCompare)
        assert_eq!(
            sorted(&["a-b", "ab", "a_b", "a.b", "aB", "Ab", "ab1", "a10", "a9"]),
            ["a_b", "a-b", "a.b", "a10", "a9", "ab", "aB", "Ab", "ab1"]
        );
        assert_eq!(
            sorted(&["README.md", "Cargo.toml", ".gitignore", "src", "_x", "9"]),
            ["_x", ".gitignore", "9", "Cargo.toml", "README.md", "src"]
        );
    }
}
