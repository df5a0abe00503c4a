//! The 600 000-character output of `large_output`: numbered lines of fixed
//! width, so a scenario can check the head and the tail of what reaches the
//! model (and where a cut fell) without the fixture's source at hand.

/// Characters in every line, its newline included.
pub(crate) const LINE_CHARS: usize = 60;
/// Lines in the output.
pub(crate) const LINES: usize = 10_000;
/// The output's length in characters (all ASCII, so bytes too).
pub(crate) const TOTAL_CHARS: usize = LINE_CHARS * LINES;

/// What follows the line number on every line: 52 letters, `LINE_CHARS`
/// less the 6-digit number, its space and the newline.
const FILLER: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// `000001 abc…XYZ\n` up to `010000 abc…XYZ\n`.
pub(crate) fn large_output() -> String {
    let mut out = String::with_capacity(TOTAL_CHARS);
    for line in 1..=LINES {
        out.push_str(&format!("{line:06} {FILLER}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_has_the_length_and_the_ends_it_promises() {
        let text = large_output();
        assert_eq!(text.len(), 600_000);
        assert_eq!(text.chars().count(), TOTAL_CHARS);
        assert!(text.starts_with("000001 abcdefghijklmnopqrstuvwxyz"));
        assert!(text.ends_with("010000 abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n"));
        assert!(text.split_inclusive('\n').all(|l| l.len() == LINE_CHARS));
    }
}
