//! The order of JavaScript's `a.localeCompare(b)` under Node's ICU with an
//! English locale (CLDR root collation), by which Qwen's `ls` sorts names and
//! its `glob` sorts the paths of older files.
//!
//! Three levels, each compared over the whole string before the next:
//! primary (the letter: punctuation and symbols in CLDR's order, then
//! digits, then letters case-insensitively), secondary (accents:
//! `e < é < è < ê < ë`; ligatures after them), tertiary (lowercase before
//! uppercase). Exact for ASCII and Latin-1 (checked against Node 20, ICU 78,
//! below); other characters are an approximation rather than a port of ICU:
//! letters sort after the Latin ones by their lowercase code point, symbols
//! among the ASCII punctuation, so each script stays together and lowercase
//! still comes first.

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

/// `a.localeCompare(b)`: `Equal` for names ICU cannot tell apart (they
/// differ only in ignored controls, or in characters outside the exact
/// range that get the same weights), as JavaScript's comparison returns 0.
#[must_use]
pub fn locale_cmp(a: &str, b: &str) -> Ordering {
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

    #[test]
    fn other_scripts_and_symbols_keep_icus_groups() {
        // Node 20: letters of other scripts after the Latin ones, lowercase
        // first; a Latin-1 symbol before the digits (where among the
        // punctuation is the approximate part).
        assert_eq!(
            sorted(&["Б", "а", "б", "А", "b", "B"]),
            ["b", "B", "а", "А", "б", "Б"]
        );
        assert_eq!(sorted(&["a", "9", "÷"]), ["÷", "9", "a"]);
    }

    /// Random strings over path characters, sorted by Node 20's
    /// `localeCompare` (ICU, en-US).
    const NODE_ORDER: &[&str] = &[
        " ",
        " 1néÉ$",
        " ñaAA",
        " ñè.0",
        " o0/[",
        "_",
        "_ -e",
        "_/_@9",
        "_$~9",
        "_a$n",
        "_b+9A",
        "_É",
        "_ë0z",
        "_ñ1",
        "_Z9",
        "_zAéÉ",
        "-",
        "- ~[",
        "-.Z@+(",
        "-a(BZ",
        "-ébê+ê",
        "-èZZa",
        ".",
        ".(./b",
        ".[é/[b",
        ".@_@",
        "./_o_é",
        ".~ ",
        ".~1/",
        "(.B+..",
        "(([Aññ",
        "(0",
        "(A-èe9",
        "(A[[1",
        "(e",
        "(ÉB[",
        "(ÉZÉZ$",
        "(z[A~",
        "(zö/",
        "[",
        "[[0",
        "[/ë",
        "[~öZ",
        "[a",
        "[nÉ[A9",
        "@",
        "@$(",
        "@$éz",
        "@azB",
        "@béê ",
        "/",
        "/.",
        "/[  a",
        "/9[",
        "/ë",
        "/e~",
        "/é~É~@",
        "/é9+Z",
        "/eboëa",
        "/enéö0",
        "+",
        "+( bëè",
        "+( é",
        "++",
        "+90$(",
        "+a+",
        "+bnZ",
        "+é",
        "+é z",
        "+o@",
        "~",
        "~b",
        "$",
        "$ ö-ñ/",
        "$+~êéê",
        "$é",
        "$è09ñ",
        "$ÉÉ~+",
        "$éö@",
        "$èZeee",
        "$n",
        "$ñö~",
        "$o+a0",
        "0",
        "0+.+é",
        "0a",
        "0Bê AÉ",
        "0ê/1",
        "0ö0o~",
        "0Za",
        "1",
        "1 ëéB@",
        "1_Zz",
        "19",
        "1êB0",
        "1ñ~(z",
        "1ñ~9",
        "9",
        "9-$öAo",
        "9[É è",
        "9~AZb$",
        "91[azb",
        "91$+",
        "99-ö-",
        "9é ",
        "9É_a",
        "9è-~",
        "9É.n$o",
        "9ê[",
        "9êë~ë/",
        "A",
        "A ",
        "A è",
        "A_",
        "a[99(_",
        "a@b~e",
        "AA/aa",
        "AÉ-",
        "ae[ñ",
        "AÉ@",
        "aê+0É@",
        "aeê1B",
        "AëeZ",
        "añé",
        "Az/b$É",
        "b",
        "B__",
        "B[$o",
        "b@",
        "B$Be ",
        "b0öBê",
        "b9(éZ",
        "bb_èêe",
        "bê",
        "bë z",
        "bèéè",
        "bëzé",
        "Bñ-@èb",
        "bö(e",
        "Bob",
        "é",
        "è",
        "ê",
        "ë",
        "é n+(/",
        "É_",
        "ë.",
        "É..Z",
        "É(Éè_",
        "é(enba",
        "é(n$z",
        "é[",
        "e[9Éë",
        "é[ê",
        "ê/",
        "ë/an",
        "ê+",
        "ê+ée ",
        "ê~öbb_",
        "ë$[-ê",
        "ê$Aeb",
        "ë9",
        "è9b0[B",
        "Éa9",
        "ÉAeêA",
        "èAñ",
        "Éaöaz+",
        "ëB",
        "ébb",
        "èBoé",
        "eÉ",
        "êè",
        "èë-n~",
        "eè@-",
        "ëÉ9",
        "èéb",
        "eèÉé[Z",
        "Éeo",
        "êëoB",
        "èñ",
        "êñ",
        "Éñ0ê",
        "éñA@0",
        "Éna1ö",
        "ènÉ++~",
        "énëë",
        "éö",
        "éz",
        "êZ~+a",
        "n",
        "ñ",
        "n_[ë",
        "n-0",
        "n.É.è",
        "n@B~Bé",
        "n99É$(",
        "ña9n",
        "ñAb@--",
        "ñB$/",
        "ñbÉn1",
        "ne",
        "né",
        "ñë",
        "né@z",
        "nè+(+",
        "ñéa",
        "ñéaè_$",
        "nöZZ",
        "nzZ",
        "o",
        "ö",
        "ö_É",
        "o(0oé",
        "ö/1z9",
        "ob",
        "oB",
        "öBéZB",
        "öé",
        "oÉ_a 0",
        "oéèñ9",
        "ön0é.(",
        "oña",
        "oo",
        "z",
        "Z",
        "Z_aoe~",
        "z(",
        "z+-@Éê",
        "z+B",
        "Z~_9/",
        "z~o( A",
        "Z1Aé(@",
        "Z1ë",
        "Z9eA",
        "zAe",
        "zaÉ",
        "ZbBñ_-",
        "Zé",
        "ZÉ-n",
        "zne/Z",
    ];

    #[test]
    fn sorts_like_node_locale_compare() {
        let mut ours = NODE_ORDER.to_vec();
        ours.reverse();
        ours.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(ours, NODE_ORDER);
    }

    #[test]
    fn the_glob_probe_order() {
        // Qwen 0.24.4's glob output for two-day-old files.
        let expected = [
            "/r/_x.txt",
            "/r/~x.txt",
            "/r/a_b.txt",
            "/r/a-b.txt",
            "/r/a.b.txt",
            "/r/a/b.txt",
            "/r/a1.txt",
            "/r/a10.txt",
            "/r/a9.txt",
            "/r/ab.txt",
            "/r/Ab.txt",
            "/r/b.txt",
            "/r/B.txt",
            "/r/dirlink_target/in.txt",
            "/r/e.txt",
            "/r/é.txt",
            "/r/f.txt",
            "/r/x y.txt",
            "/r/z.txt",
            "/r/Z/a.txt",
        ];
        let mut ours = expected.to_vec();
        ours.sort();
        ours.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(ours, expected);
    }
}
