//! Generated files and the needles of the bench cases.
//!
//! Files are code-like text: about 40 bytes a line, varied indentation
//! (spaces and tabs), some trailing spaces, and some curly quotes and dashes,
//! which is what the matcher's fold and trim passes exist for. Every line that
//! carries an identifier is numbered by its line index, so a needle copied
//! from the file occurs once, where it was copied from.
//!
//! Generation is deterministic (a fixed-seed xorshift), so every run of every
//! bench sees the same bytes.

use std::fmt;

use toolpass_core::fold::{fold_str, trim_end_js};
use toolpass_core::matching::{LinePass, MatchTier};

/// A file size the benches run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// The label used in bench ids, e.g. `1MiB`.
    pub label: &'static str,
    /// The target length in bytes; see [`code_like_text`] for how close the
    /// file comes to it.
    pub bytes: usize,
}

/// The sizes of the bench files: a small source file, a large one, and a
/// generated or vendored file of the kind an agent still gets asked to edit.
pub const SIZES: [Size; 3] = [
    Size {
        label: "4KiB",
        bytes: 4 << 10,
    },
    Size {
        label: "1MiB",
        bytes: 1 << 20,
    },
    Size {
        label: "16MiB",
        bytes: 16 << 20,
    },
];

/// Returns code-like text of at most `bytes` bytes, ending with a newline
/// and within one line (under 100 bytes) of `bytes`.
///
/// The file always ends with the same four-line block (numbered like the
/// rest), which the needles of [`Case`] are cut from; files shorter than
/// that block are the block alone.
#[must_use]
pub fn code_like_text(bytes: usize) -> String {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let mut text = String::with_capacity(bytes);
    let mut line = String::new();
    for n in 0.. {
        line.clear();
        body_line(&mut rng, n, &mut line);
        let tail = tail_block(n + 1);
        if text.len() + line.len() + tail.len() > bytes {
            text.push_str(&tail);
            break;
        }
        text.push_str(&line);
    }
    text
}

/// A bench case: what the needle is and which tier of the chain answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Case {
    /// The file's last three lines, byte for byte: one `memmem` pass over the
    /// whole file finds them at its end.
    ExactHitAtEnd,
    /// Three realistic code lines that occur nowhere, ending in a newline so
    /// that the retry without the trailing empty line runs too: every tier of
    /// the chain runs to the end of the file and fails.
    ChainFails,
    /// Lines near the end of the file with its curly quote and dash folded to
    /// ASCII and its trailing spaces stripped: only the fold+trimEnd line
    /// pass finds them.
    FuzzyHitNearEnd,
}

impl Case {
    /// Every case, in bench order.
    pub const ALL: [Self; 3] = [Self::ExactHitAtEnd, Self::ChainFails, Self::FuzzyHitNearEnd];

    /// The case's name in bench ids.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::ExactHitAtEnd => "exact_hit_at_end",
            Self::ChainFails => "chain_fails",
            Self::FuzzyHitNearEnd => "fuzzy_hit_near_end",
        }
    }

    /// The tier that must answer this case, or `None` for no match.
    #[must_use]
    pub const fn expected_tier(self) -> Option<MatchTier> {
        match self {
            Self::ExactHitAtEnd => Some(MatchTier::Literal),
            Self::ChainFails => None,
            Self::FuzzyHitNearEnd => Some(MatchTier::Lines(LinePass::FoldTrimEnd)),
        }
    }

    /// The needle of this case for `file`, a text from [`code_like_text`].
    #[must_use]
    pub fn needle(self, file: &str) -> String {
        let lines: Vec<&str> = file.split_inclusive('\n').collect();
        let last = |count: usize| lines.get(lines.len().saturating_sub(count)..);
        match self {
            Self::ExactHitAtEnd => last(3).unwrap_or_default().concat(),
            // A stale `old_string`: the model's memory of a block the file
            // never had. Its tokens are ordinary, but the longest run the
            // matcher can anchor on ("Err(Overflow(total));") is nowhere.
            Self::ChainFails => concat!(
                "        let total = compute(x, y) + offset; // stale\n",
                "        if total > limit {\n",
                "            return Err(Overflow(total));\n",
            )
            .to_owned(),
            // The first three lines of the tail block, as a model that
            // normalised punctuation and whitespace would send them.
            Self::FuzzyHitNearEnd => last(4)
                .unwrap_or_default()
                .iter()
                .take(3)
                .map(|line| trim_end_js(&fold_str(line)).to_owned())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The block every file ends with. Its first line has a curly quote, a dash
/// and trailing spaces, so that stripping and folding it changes it, and it
/// is not the needle's last line, so that the folded substring tier cannot
/// match a prefix of it.
fn tail_block(n: usize) -> String {
    format!(
        "    // tail {n}: it’s the last block — keep it   \n    let closing_{n} = finish(total, {n});\n    return closing_{n};\n}}\n"
    )
}

/// Appends one generated line, newline included.
fn body_line(rng: &mut XorShift, n: usize, out: &mut String) {
    const INDENTS: [&str; 8] = [
        "",
        "    ",
        "    ",
        "        ",
        "        ",
        "            ",
        "\t",
        "\t\t",
    ];
    let pick = |rng: &mut XorShift, len: usize| rng.below(len);
    let kind = pick(rng, 12);
    if kind == 11 {
        out.push('\n');
        return;
    }
    out.push_str(INDENTS[pick(rng, INDENTS.len())]);
    let body = match kind {
        0 => format!("let value_{n} = compute(x, y);"),
        1 => format!("let value_{n} = compute(x, y); // note"),
        2 => format!("if count_{n} > limit {{"),
        3 => "}".to_owned(),
        4 => format!("return result_{n}.map(|v| v + 1);"),
        5 => format!("// it’s the caller’s job — see {n}"),
        6 => format!("let label_{n} = “item”;"),
        7 => format!("total_{n} += step;"),
        8 => format!("fn handler_{n}(ctx: &Context) -> Result<()> {{"),
        9 => format!("assert_eq!(left_{n}, right);"),
        _ => format!("self.emit(Event::Tick, {n});"),
    };
    out.push_str(&body);
    if pick(rng, 8) == 0 {
        out.push_str("  ");
    }
    out.push('\n');
}

/// Marsaglia's xorshift64: deterministic, dependency-free, and plenty for
/// picking line shapes.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        // `n` is a small table length, so the modulo bias is irrelevant.
        usize::try_from(self.0 % n as u64).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_deterministic_and_close_to_its_size() {
        for size in SIZES {
            let text = code_like_text(size.bytes);
            assert!(text.len() <= size.bytes, "{}", size.label);
            assert!(size.bytes - text.len() < 100, "{}", size.label);
            assert!(text.ends_with("}\n"));
            assert_eq!(text, code_like_text(size.bytes));
        }
    }

    #[test]
    fn text_looks_like_code() {
        let text = code_like_text(1 << 20);
        let lines: Vec<&str> = text.lines().collect();
        let average = text.len() / lines.len();
        assert!((30..=50).contains(&average), "average line {average} bytes");
        let share = |f: fn(&str) -> bool| lines.iter().filter(|l| f(l)).count() * 100 / lines.len();
        assert!(share(|l| l.ends_with(' ')) >= 5);
        assert!(share(|l| l.starts_with('\t')) >= 5);
        assert!(share(|l| l.starts_with("    ")) >= 30);
        assert!(share(|l| l.contains('’') || l.contains('“')) >= 5);
        assert!(share(str::is_empty) >= 3);
    }

    #[test]
    fn needles_are_cut_from_the_tail_block() {
        let text = code_like_text(4 << 10);
        let exact = Case::ExactHitAtEnd.needle(&text);
        assert!(text.ends_with(&exact));
        assert_eq!(exact.lines().count(), 3);
        assert_eq!(text.matches(&exact).count(), 1);

        let fuzzy = Case::FuzzyHitNearEnd.needle(&text);
        assert!(fuzzy.starts_with("    // tail "));
        assert!(fuzzy.contains("it's the last block - keep it\n"));
        assert!(fuzzy.is_ascii());
        assert!(!fuzzy.ends_with('\n'));

        let fails = Case::ChainFails.needle(&text);
        assert!(fails.ends_with('\n'));
        assert_eq!(fails.lines().count(), 3);
    }

    #[test]
    fn tiny_sizes_still_end_with_the_tail_block() {
        assert_eq!(code_like_text(0), tail_block(1));
    }
}
