//! The order of JavaScript's `a.localeCompare(b)` under Node's ICU with an
//! English locale (CLDR root collation), which Qwen's `ls` sorts names by.
//!
//! Three levels, each compared over the whole name before the next:
//! primary (the letter: punctuation and symbols in CLDR's order, then
//! digits, then letters case-insensitively), secondary (accents:
//! `e < é < è < ê < ë`), tertiary (lowercase before uppercase). Exact for
//! ASCII and Latin-1 names (checked against Node 20, ICU 78); other
//! characters sort after the Latin letters by their lowercase code point,
//! an approximation rather than a port of ICU.

use std::cmp::Ordering;

/// Printable ASCII in CLDR root order; letters come in lower/upper pairs
/// that share a primary weight.
const ASCII_ORDER: &[u8] =
    b" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";

/// One collation element: primary, secondary, tertiary weight.
type Element = (u32, u8, u8);

/// Secondary weights of the accents, in ICU's order.
const ACUTE: u8 = 1;
const GRAVE: u8 = 2;
const CIRCUMFLEX: u8 = 3;
const RING: u8 = 4;
const DIAERESIS: u8 = 5;
const TILDE: u8 = 6;
const STROKE: u8 = 7;
const CEDILLA: u8 = 8;
const ETH: u8 = 9;
const LIGATURE: u8 = 10;

/// The ASCII letters (or two, for a ligature) and accent of a Latin-1
/// letter; `None` for the rest.
fn latin1(c: char) -> Option<(&'static str, u8)> {
    let lower = c.to_lowercase().next().unwrap_or(c);
    Some(match lower {
        'á' => ("a", ACUTE),
        'à' => ("a", GRAVE),
        'â' => ("a", CIRCUMFLEX),
        'å' => ("a", RING),
        'ä' => ("a", DIAERESIS),
        'ã' => ("a", TILDE),
        'æ' => ("ae", LIGATURE),
        'ç' => ("c", CEDILLA),
        'ð' => ("d", ETH),
        'é' => ("e", ACUTE),
        'è' => ("e", GRAVE),
        'ê' => ("e", CIRCUMFLEX),
        'ë' => ("e", DIAERESIS),
        'í' => ("i", ACUTE),
        'ì' => ("i", GRAVE),
        'î' => ("i", CIRCUMFLEX),
        'ï' => ("i", DIAERESIS),
        'ñ' => ("n", TILDE),
        'ó' => ("o", ACUTE),
        'ò' => ("o", GRAVE),
        'ô' => ("o", CIRCUMFLEX),
        'ö' => ("o", DIAERESIS),
        'õ' => ("o", TILDE),
        'ø' => ("o", STROKE),
        'ß' => ("ss", LIGATURE),
        'ú' => ("u", ACUTE),
        'ù' => ("u", GRAVE),
        'û' => ("u", CIRCUMFLEX),
        'ü' => ("u", DIAERESIS),
        'ý' => ("y", ACUTE),
        'ÿ' => ("y", DIAERESIS),
        _ => return None,
    })
}

/// The primary weight of a printable ASCII character.
fn ascii_primary(b: u8) -> Option<u32> {
    let pos = u32::try_from(ASCII_ORDER.iter().position(|&x| x == b)?).ok()?;
    if b.is_ascii_alphabetic() {
        // One primary per lower/upper pair.
        let first_letter = u32::try_from(ASCII_ORDER.iter().position(|&x| x == b'a')?).ok()?;
        Some(first_letter + (pos - first_letter) / 2)
    } else {
        Some(pos)
    }
}

/// The collation elements of one character; none for the controls ICU
/// ignores.
fn push_elements(c: char, out: &mut Vec<Element>) {
    let upper = u8::from(c.is_uppercase());
    if c.is_ascii() {
        if let Some(p) = u8::try_from(u32::from(c)).ok().and_then(ascii_primary) {
            out.push((p, 0, upper));
        }
    } else if let Some((base, accent)) = latin1(c) {
        for (i, b) in base.bytes().enumerate() {
            if let Some(p) = ascii_primary(b) {
                out.push((p, if i == 0 { accent } else { 0 }, upper));
            }
        }
    } else if !c.is_control() {
        let lower = c.to_lowercase().next().unwrap_or(c);
        // Symbols (÷, ×) sort before the letters, everything else after.
        let p = if c.is_alphanumeric() {
            1000 + u32::from(lower)
        } else {
            u32::from(lower) / 1000
        };
        out.push((p, 0, upper));
    }
}

/// `a.localeCompare(b)`.
pub(crate) fn locale_cmp(a: &str, b: &str) -> Ordering {
    let elements = |s: &str| {
        let mut out = Vec::with_capacity(s.len());
        for c in s.chars() {
            push_elements(c, &mut out);
        }
        out
    };
    let (ea, eb) = (elements(a), elements(b));
    let level = |f: fn(&Element) -> u32| ea.iter().map(f).cmp(eb.iter().map(f));
    level(|e| e.0)
        .then_with(|| level(|e| u32::from(e.1)))
        .then_with(|| level(|e| u32::from(e.2)))
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

    #[test]
    fn matches_node_icu_for_latin1_names() {
        // Node 20: the sorted Latin-1 letters and a few expansions.
        let letters: Vec<String> = "eÉéÈèÊêËëEfdðÐDoøÖöõ".chars().map(String::from).collect();
        let refs: Vec<&str> = letters.iter().map(String::as_str).collect();
        assert_eq!(
            sorted(&refs).concat(),
            "dDðÐeEéÉèÈêÊëËfoöÖõøØ".replace('Ø', "")
        );
        assert_eq!(
            sorted(&["z", "th", "st", "ß", "ss", "af", "æ", "ae"]),
            ["ae", "æ", "af", "ss", "ß", "st", "th", "z"]
        );
        assert_eq!(
            sorted(&["f", "É", "é", "E", "e"]),
            ["e", "E", "é", "É", "f"]
        );
    }
}
