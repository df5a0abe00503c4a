//! JavaScript's `JSON.stringify` of a string, over UTF-16 units: the
//! deferred-tools reminder shows names and descriptions as JSON strings
//! (`notebook_edit` prints a notebook's strings the same way), and
//! a description cut at 157 units may end in half of a surrogate pair, which
//! `JSON.stringify` writes as `\udXXX`.

use std::fmt::Write as _;

/// `JSON.stringify(s)` for `s` given as UTF-16 units.
pub fn quote_units(units: &[u16]) -> String {
    let mut out = String::with_capacity(units.len() + 2);
    out.push('"');
    for piece in char::decode_utf16(units.iter().copied()) {
        match piece {
            Ok(c) => push_escaped(&mut out, c),
            // A lone surrogate (ES2019's well-formed `JSON.stringify`).
            Err(lone) => {
                let _ = write!(out, "\\u{:04x}", lone.unpaired_surrogate());
            }
        }
    }
    out.push('"');
    out
}

/// `JSON.stringify(s)`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out.push('"');
    out
}

/// Appends `c` as `JSON.stringify` writes it inside a string.
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if u32::from(c) < 0x20 => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Node's `JSON.stringify` writes for each.
    #[test]
    fn agrees_with_javascript() {
        assert_eq!(quote("cron_list"), r#""cron_list""#);
        assert_eq!(
            quote("a\"b\\c\n\t\u{1}\u{7f}"),
            "\"a\\\"b\\\\c\\n\\t\\u0001\u{7f}\""
        );
        assert_eq!(quote("</function> `x` é😀"), "\"</function> `x` é😀\"");
        let half: Vec<u16> = "a😀".encode_utf16().take(2).collect();
        assert_eq!(quote_units(&half), r#""a\ud83d""#);
        let whole: Vec<u16> = "a😀".encode_utf16().collect();
        assert_eq!(quote_units(&whole), quote("a😀"));
    }
}
