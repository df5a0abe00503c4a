//! The order Qwen ranks and lists tool names in: JavaScript's
//! `a.localeCompare(b)`, which Node answers with ICU's collation for
//! `en-US` (CLDR root order, punctuation not ignored, case a tertiary
//! difference with lowercase first).
//!
//! Tie-breaks between equally scored tools and the order of the
//! deferred-tools reminder are visible to the model, so they follow ICU, not
//! byte order: `tool_b` sorts before `tool-a` before `tool.a` before `tool1`
//! before `toola` before `toolA`, where bytes would put `toolA` first. Exact
//! for ASCII, which covers every name the registry declares
//! ([`crate::tool_name`]) and every server name it accepts; any other
//! character sorts after all of ASCII, by code point, an approximation of
//! ICU's tables that only such names would see.

use std::cmp::Ordering;

/// Printable ASCII in ICU's root order, one group per primary weight (a
/// letter's two cases share one), as Node 20 sorts them.
const ROOT_ORDER: &[&str] = &[
    " ", "_", "-", ",", ";", ":", "!", "?", ".", "'", "\"", "(", ")", "[", "]", "{", "}", "@", "*",
    "/", "\\", "&", "#", "%", "`", "^", "+", "<", "=", ">", "|", "~", "$", "0", "1", "2", "3", "4",
    "5", "6", "7", "8", "9", "aA", "bB", "cC", "dD", "eE", "fF", "gG", "hH", "iI", "jJ", "kK",
    "lL", "mM", "nN", "oO", "pP", "qQ", "rR", "sS", "tT", "uU", "vV", "wW", "xX", "yY", "zZ",
];

/// The primary weight of each ASCII byte (0: ignorable, as control
/// characters are in ICU).
const PRIMARY: [u32; 128] = primary_table();

// Evaluated at compile time only: an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn primary_table() -> [u32; 128] {
    let mut table = [0_u32; 128];
    let mut group = 0;
    while group < ROOT_ORDER.len() {
        let bytes = ROOT_ORDER[group].as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            table[bytes[i] as usize] = group as u32 + 1;
            i += 1;
        }
        group += 1;
    }
    table
}

/// A character's primary weight: ICU's for ASCII, after all of ASCII by
/// code point of its lowercase otherwise; `None` for what ICU ignores.
fn primary(c: char) -> Option<u32> {
    let weight = match u8::try_from(c) {
        Ok(byte) if byte.is_ascii() => PRIMARY.get(usize::from(byte)).copied().unwrap_or(0),
        _ => {
            let lower = c.to_lowercase().next().unwrap_or(c);
            ROOT_ORDER.len() as u32 + 1 + u32::from(lower)
        }
    };
    (weight != 0).then_some(weight)
}

/// `a.localeCompare(b)` as an [`Ordering`], then bytes, so that the order
/// is total: two names ICU calls equal (they differ only in ignorable
/// characters) still rank the same way whatever order they arrived in.
/// Allocation-free: ranking compares names of equally scored tools by the
/// thousand.
#[must_use]
pub fn locale_order(a: &str, b: &str) -> Ordering {
    // Level 1: the primary weights, the shorter sequence first on a tie.
    // Level 3 (ASCII has no accents, so level 2 is always equal): case,
    // lowercase first, over the characters that carry weight.
    primaries(a)
        .cmp(primaries(b))
        .then_with(|| cases(a).cmp(cases(b)))
        .then_with(|| a.cmp(b))
}

fn primaries(s: &str) -> impl Iterator<Item = u32> + '_ {
    s.chars().filter_map(primary)
}

fn cases(s: &str) -> impl Iterator<Item = bool> + '_ {
    s.chars()
        .filter(|&c| primary(c).is_some())
        .map(char::is_uppercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Node 20's `localeCompare` sorts these to
    /// (`a.sort((x, y) => x.localeCompare(y))`).
    #[test]
    fn agrees_with_node() {
        let mut names = [
            "a_b",
            "a-b",
            "a.b",
            "a1b",
            "aBb",
            "abb",
            "Abb",
            "ab",
            "a_",
            "A",
            "a",
            "b",
            "B",
            "mcp__x__y",
            "mcp_x",
            "mcp-x",
        ];
        names.sort_by(|x, y| locale_order(x, y));
        assert_eq!(
            names,
            [
                "a",
                "A",
                "a_",
                "a_b",
                "a-b",
                "a.b",
                "a1b",
                "ab",
                "abb",
                "aBb",
                "Abb",
                "b",
                "B",
                "mcp__x__y",
                "mcp_x",
                "mcp-x"
            ]
        );
    }

    #[test]
    fn control_characters_are_ignored_but_the_order_stays_total() {
        assert_eq!(locale_order("\u{1}a", "a"), Ordering::Less);
        assert_eq!(locale_order("a", "\u{1}a"), Ordering::Greater);
        assert_eq!(locale_order("a b", "ab"), Ordering::Less);
        assert_eq!(locale_order("tool", "tool"), Ordering::Equal);
    }

    #[test]
    fn other_characters_sort_after_ascii() {
        assert_eq!(locale_order("zz", "é"), Ordering::Less);
        assert_eq!(locale_order("aé", "aÉ"), Ordering::Less);
    }
}
