//! Byte-level counting for truncation: UTF-16 length, newlines and
//! char-boundary-safe cuts measured in UTF-16 code units.
//!
//! Qwen measures JavaScript `.length`, which counts UTF-16 code units. Over
//! UTF-8 bytes that count is "one per char start, plus one more per 4-byte
//! char" (those are the chars outside the BMP, which take a surrogate pair), so
//! it needs no decoding: every function here is a loop over bytes.

/// What one pass over the whole input learns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Measure {
    /// Length in UTF-16 code units (JavaScript's `.length`).
    pub(super) units: usize,
    /// Number of `\n` bytes; the line count of `split('\n')` is one more.
    pub(super) newlines: usize,
}

/// Lanes of the counting kernel: wide enough for AVX2, and the compiler
/// splits it for narrower vectors.
const LANES: usize = 32;

/// Rows summed into `u8` lanes before they are widened: a byte adds at most 2
/// units, so 127 rows stay within `u8::MAX`.
const ROWS_PER_FLUSH: usize = 127;

/// Counts UTF-16 units and newlines of `bytes` in one pass.
///
/// The inner loop adds into `u8` lanes because that is what auto-vectorises
/// into byte-wide SIMD adds; widening every byte to `usize` would make the
/// loop several times slower.
pub(super) fn measure(bytes: &[u8]) -> Measure {
    let (rows, rest) = bytes.as_chunks::<LANES>();
    let mut total = Measure::default();
    for block in rows.chunks(ROWS_PER_FLUSH) {
        let mut units = [0u8; LANES];
        let mut newlines = [0u8; LANES];
        for row in block {
            for ((u, nl), &b) in units.iter_mut().zip(newlines.iter_mut()).zip(row) {
                *u = u.wrapping_add(unit_weight(b));
                *nl = nl.wrapping_add(u8::from(b == b'\n'));
            }
        }
        total.units += widen(&units);
        total.newlines += widen(&newlines);
    }
    for &b in rest {
        total.units += usize::from(unit_weight(b));
        total.newlines += usize::from(b == b'\n');
    }
    total
}

/// UTF-16 length of `bytes`, which must be whole UTF-8 chars.
pub(crate) fn units(bytes: &[u8]) -> usize {
    // The kernel of `measure` without the newline count: the batch budget
    // measures every text of a batch and needs only this, and one
    // accumulator instead of two is what keeps it near memory speed.
    let (rows, rest) = bytes.as_chunks::<LANES>();
    let mut total = 0;
    for block in rows.chunks(ROWS_PER_FLUSH) {
        let mut units = [0u8; LANES];
        for row in block {
            for (u, &b) in units.iter_mut().zip(row) {
                *u = u.wrapping_add(unit_weight(b));
            }
        }
        total += widen(&units);
    }
    total
        + rest
            .iter()
            .map(|&b| usize::from(unit_weight(b)))
            .sum::<usize>()
}

/// The longest prefix of `bytes` that is at most `max_units` UTF-16 units and
/// ends on a char boundary: `(end, units)`.
///
/// Where JavaScript's `slice(0, n)` would end between the two halves of a
/// surrogate pair, this stops before the pair, so the result is one unit
/// shorter and never carries half a character.
pub(crate) fn prefix_within(bytes: &[u8], max_units: usize) -> (usize, usize) {
    let mut used = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let w = usize::from(unit_weight(b));
        // Only a char's first byte has weight, so stopping there stops on a
        // boundary.
        if w > 0 && used + w > max_units {
            return (i, used);
        }
        used += w;
    }
    (bytes.len(), used)
}

/// The longest suffix of `bytes` that is at most `max_units` UTF-16 units and
/// starts on a char boundary: `(start, units)`.
///
/// The mirror image of [`prefix_within`], for JavaScript's `slice(-n)`.
pub(crate) fn suffix_within(bytes: &[u8], max_units: usize) -> (usize, usize) {
    let mut used = 0;
    let mut start = bytes.len();
    for (i, &b) in bytes.iter().enumerate().rev() {
        let w = usize::from(unit_weight(b));
        if w == 0 {
            continue;
        }
        if used + w > max_units {
            break;
        }
        used += w;
        start = i;
    }
    (start, used)
}

/// UTF-16 units contributed by one UTF-8 byte: 0 for a continuation byte, 2
/// for the lead byte of a 4-byte char, 1 for any other char start.
///
/// Written without branches so the counting loop vectorises.
#[inline(always)]
fn unit_weight(b: u8) -> u8 {
    u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0)
}

fn widen(lanes: &[u8; LANES]) -> usize {
    lanes.iter().map(|&x| usize::from(x)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str) -> usize {
        s.encode_utf16().count()
    }

    #[test]
    fn measure_agrees_with_encode_utf16_across_block_edges() {
        // Long enough to cross several flushes, with every char width.
        let piece = "a\né中😀\n";
        for reps in [0, 1, 5, 300, 2_000] {
            let s = piece.repeat(reps);
            let m = measure(s.as_bytes());
            assert_eq!(m.units, utf16(&s));
            assert_eq!(m.newlines, s.matches('\n').count());
        }
        let emoji = "😀".repeat(LANES * ROWS_PER_FLUSH * 2 + 3);
        assert_eq!(units(emoji.as_bytes()), utf16(&emoji));
    }

    #[test]
    fn prefix_within_never_splits_a_surrogate_pair() {
        let s = "a😀b";
        assert_eq!(prefix_within(s.as_bytes(), 0), (0, 0));
        assert_eq!(prefix_within(s.as_bytes(), 1), (1, 1));
        // JavaScript would keep "a\uD83D"; we stop before the pair.
        assert_eq!(prefix_within(s.as_bytes(), 2), (1, 1));
        assert_eq!(prefix_within(s.as_bytes(), 3), (5, 3));
        assert_eq!(prefix_within(s.as_bytes(), 9), (6, 4));
    }

    #[test]
    fn suffix_within_never_splits_a_surrogate_pair() {
        let s = "a😀b";
        assert_eq!(suffix_within(s.as_bytes(), 0), (6, 0));
        assert_eq!(suffix_within(s.as_bytes(), 1), (5, 1));
        assert_eq!(suffix_within(s.as_bytes(), 2), (5, 1));
        assert_eq!(suffix_within(s.as_bytes(), 3), (1, 3));
        assert_eq!(suffix_within(s.as_bytes(), 9), (0, 4));
    }
}
