//! The character fold and the whitespace rules the matcher compares with.
//!
//! The fold table is Qwen Code's `UNICODE_EQUIVALENT_MAP`
//! (`packages/core/src/utils/editHelper.ts`), entry for entry: typographic
//! hyphens and dashes become `-`, curly single quotes `'`, curly double quotes
//! `"`, and the special spaces a plain space. Every folded-to character is
//! ASCII and every folded-from character is not, which is what lets the
//! matcher search for runs of the needle that no fold can touch with a plain
//! byte search (see [`is_fold_stable`]).
//!
//! Whitespace trimming follows JavaScript's `String.prototype.trimEnd`, not
//! Rust's `str::trim_end`: the two disagree on U+FEFF (JS trims it) and U+0085
//! (Rust trims it), and the matcher must agree with Qwen on which lines match.

/// Folds one character the way Qwen's `normalizeBasicCharacters` does.
///
/// Characters outside the table are returned unchanged.
#[must_use]
pub const fn fold_char(c: char) -> char {
    match c {
        // Hyphen variations → ASCII hyphen-minus.
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        // Curly single quotes → straight apostrophe.
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        // Curly double quotes → straight double quote.
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        // Whitespace variants → normal space.
        '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2004}' | '\u{2005}' | '\u{2006}'
        | '\u{2007}' | '\u{2008}' | '\u{2009}' | '\u{200A}' | '\u{202F}' | '\u{205F}'
        | '\u{3000}' => ' ',
        other => other,
    }
}

/// Folds a whole string; the slow, allocating form of [`fold_char`].
///
/// The matcher never calls this on the file: it exists for needles (which are
/// small) and for the test models.
#[must_use]
pub fn fold_str(s: &str) -> String {
    s.chars().map(fold_char).collect()
}

/// Whether `c` can only ever match itself under the fold.
///
/// A character is fold-stable when it is neither folded from (a key of the
/// table) nor folded to (`-`, `'`, `"`, space). A run of fold-stable
/// characters in a needle must appear byte for byte in any folded match, so
/// it can be found with `memmem` before any folding is done.
#[must_use]
pub const fn is_fold_stable(c: char) -> bool {
    !matches!(c, '-' | '\'' | '"' | ' ') && fold_char(c) as u32 == c as u32
}

/// Whether JavaScript's `trimEnd` removes `c` (ECMAScript WhiteSpace and
/// LineTerminator).
#[must_use]
pub const fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `s.trimEnd()` with JavaScript's definition of whitespace.
#[must_use]
pub fn trim_end_js(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// Compares two strings character by character under the fold, without
/// allocating.
#[must_use]
pub fn eq_folded(a: &str, b: &str) -> bool {
    let mut a = a.chars().map(fold_char);
    let mut b = b.chars().map(fold_char);
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of Qwen's `UNICODE_EQUIVALENT_MAP`, with its value.
    const QWEN_TABLE: &[(char, char)] = &[
        ('\u{2010}', '-'),
        ('\u{2011}', '-'),
        ('\u{2012}', '-'),
        ('\u{2013}', '-'),
        ('\u{2014}', '-'),
        ('\u{2015}', '-'),
        ('\u{2212}', '-'),
        ('\u{2018}', '\''),
        ('\u{2019}', '\''),
        ('\u{201A}', '\''),
        ('\u{201B}', '\''),
        ('\u{201C}', '"'),
        ('\u{201D}', '"'),
        ('\u{201E}', '"'),
        ('\u{201F}', '"'),
        ('\u{00A0}', ' '),
        ('\u{2002}', ' '),
        ('\u{2003}', ' '),
        ('\u{2004}', ' '),
        ('\u{2005}', ' '),
        ('\u{2006}', ' '),
        ('\u{2007}', ' '),
        ('\u{2008}', ' '),
        ('\u{2009}', ' '),
        ('\u{200A}', ' '),
        ('\u{202F}', ' '),
        ('\u{205F}', ' '),
        ('\u{3000}', ' '),
    ];

    #[test]
    fn fold_table_is_qwens_table_and_nothing_else() {
        for &(from, to) in QWEN_TABLE {
            assert_eq!(fold_char(from), to, "U+{:04X}", from as u32);
        }
        let folded_elsewhere = (0..=0x10FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|&c| fold_char(c) != c)
            .count();
        assert_eq!(folded_elsewhere, QWEN_TABLE.len());
    }

    #[test]
    fn fold_stable_excludes_both_sides_of_the_table() {
        for &(from, to) in QWEN_TABLE {
            assert!(!is_fold_stable(from));
            assert!(!is_fold_stable(to));
        }
        for c in ['a', '}', '\t', '\n', '\r', 'é', '好', '😀', '\u{FEFF}'] {
            assert!(is_fold_stable(c), "{c:?}");
        }
    }

    #[test]
    fn every_fold_target_is_ascii_and_every_source_is_not() {
        for &(from, to) in QWEN_TABLE {
            assert!(to.is_ascii());
            assert!(!from.is_ascii());
        }
    }

    #[test]
    fn trim_end_follows_javascript_not_rust() {
        // JS trims U+FEFF; Rust's trim_end does not.
        assert_eq!(trim_end_js("a\u{FEFF}"), "a");
        // Rust trims U+0085 (NEL); JS does not.
        assert_eq!(trim_end_js("a\u{0085}"), "a\u{0085}");
        assert_eq!(trim_end_js("a \t\r\u{3000}\u{00A0}"), "a");
        assert_eq!(trim_end_js("a \t\r\u{FEFF}\u{3000}"), "a");
        assert_eq!(trim_end_js("  "), "");
    }

    #[test]
    fn folded_comparison_needs_no_allocation_and_agrees_with_fold_str() {
        assert!(eq_folded("it’s — “x”", "it's - \"x\""));
        assert!(!eq_folded("it’s", "its"));
        assert_eq!(fold_str("a\u{00A0}b—c"), "a b-c");
    }
}
