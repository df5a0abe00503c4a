//! Which of many texts contain a string, without searching each text.
//!
//! The texts (every tool's lowercased name, or every description) are kept
//! end to end with the offset where each starts, and every three-byte
//! sequence of each text is indexed: for each trigram, the texts that have
//! it. A text containing a string has every trigram of the string, so the
//! candidates are the texts listed under the string's rarest trigram, and
//! each is checked with `memmem`. A string shorter than three bytes, or
//! whose rarest trigram is in most texts, is found by one `memmem` pass
//! over the whole concatenation, each hit mapped to its text by binary
//! search over the offsets (a hit running into the next text is no hit).

use super::score::Variant;

/// Above one candidate in this many texts, one pass over everything is
/// cheaper than checking candidates one by one.
const SCAN_ABOVE_ONE_IN: usize = 4;

/// Many texts end to end, where each starts, and their trigram index.
#[derive(Debug, Clone, Default)]
pub(super) struct Corpus {
    text: String,
    /// `starts[i]` is where text `i` begins; one more entry, the total
    /// length, closes the last one.
    starts: Vec<usize>,
    /// The distinct trigrams, sorted; `postings[ranges[k]..ranges[k + 1]]`
    /// lists (ascending) the texts holding `trigrams[k]`.
    trigrams: Vec<u32>,
    ranges: Vec<usize>,
    postings: Vec<u32>,
}

fn trigram(bytes: &[u8]) -> Option<u32> {
    match *bytes {
        [a, b, c, ..] => Some(u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c)),
        _ => None,
    }
}

/// Sorts `trigram << 32 | text` pairs by trigram, stably: an LSD radix
/// sort in two 12-bit passes over the 24-bit trigram. Linear, where a
/// comparison sort of the million pairs of 10 000 descriptions was most of
/// building the index.
fn sort_by_trigram(pairs: Vec<u64>) -> Vec<u64> {
    const BITS: u32 = 12;
    const MASK: u64 = (1 << BITS) - 1;
    let mut from = pairs;
    let mut to = vec![0_u64; from.len()];
    for shift in [32, 32 + BITS] {
        let bucket = |pair: u64| usize::try_from((pair >> shift) & MASK).unwrap_or(0);
        // Where each bucket's next pair goes: counts, then running sums.
        let mut next = vec![0_usize; 1 << BITS];
        for &pair in &from {
            if let Some(count) = next.get_mut(bucket(pair)) {
                *count += 1;
            }
        }
        let mut sum = 0;
        for slot in &mut next {
            let count = *slot;
            *slot = sum;
            sum += count;
        }
        for &pair in &from {
            if let Some(slot) = next.get_mut(bucket(pair)) {
                if let Some(out) = to.get_mut(*slot) {
                    *out = pair;
                }
                *slot += 1;
            }
        }
        std::mem::swap(&mut from, &mut to);
    }
    from
}

impl Corpus {
    pub(super) fn new<'a>(texts: impl Iterator<Item = &'a str>) -> Self {
        let mut corpus = Self::default();
        // (trigram, text) pairs packed in one u64 so that one sort groups
        // them by trigram with the texts ascending.
        let mut pairs: Vec<u64> = Vec::new();
        for (i, text) in texts.enumerate() {
            corpus.starts.push(corpus.text.len());
            corpus.text.push_str(text);
            let id = u64::try_from(i).unwrap_or(u64::MAX) & u64::from(u32::MAX);
            pairs.extend(
                text.as_bytes()
                    .windows(3)
                    .filter_map(trigram)
                    .map(|t| u64::from(t) << 32 | id),
            );
        }
        corpus.starts.push(corpus.text.len());
        // Texts were added in order, and the sort is stable: each
        // trigram's texts come out ascending, a text's repeats adjacent.
        let mut pairs = sort_by_trigram(pairs);
        pairs.dedup();
        for pair in pairs {
            let key = u32::try_from(pair >> 32).unwrap_or(u32::MAX);
            if corpus.trigrams.last() != Some(&key) {
                corpus.trigrams.push(key);
                corpus.ranges.push(corpus.postings.len());
            }
            corpus
                .postings
                .push(u32::try_from(pair & u64::from(u32::MAX)).unwrap_or(u32::MAX));
        }
        corpus.ranges.push(corpus.postings.len());
        corpus
    }

    fn count(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The texts listed under trigram `key` (none when no text has it).
    fn posting(&self, key: u32) -> &[u32] {
        let Ok(k) = self.trigrams.binary_search(&key) else {
            return &[];
        };
        match (self.ranges.get(k), self.ranges.get(k + 1)) {
            (Some(&from), Some(&to)) => self.postings.get(from..to).unwrap_or_default(),
            _ => &[],
        }
    }

    /// Calls `found` once for each text that contains `variant`, in order.
    pub(super) fn containing(&self, variant: &Variant, mut found: impl FnMut(usize)) {
        let needle = variant.text.as_bytes();
        let rarest = needle
            .windows(3)
            .filter_map(trigram)
            .map(|key| self.posting(key))
            .min_by_key(|posting| posting.len());
        match rarest {
            Some(candidates) if candidates.len() <= self.count() / SCAN_ABOVE_ONE_IN => {
                for &i in candidates {
                    let i = usize::try_from(i).unwrap_or(usize::MAX);
                    if self
                        .text_of(i)
                        .is_some_and(|text| variant.finder.find(text).is_some())
                    {
                        found(i);
                    }
                }
            }
            _ => self.scan(variant, found),
        }
    }

    fn text_of(&self, i: usize) -> Option<&[u8]> {
        let (&start, &end) = (self.starts.get(i)?, self.starts.get(i + 1)?);
        self.text.as_bytes().get(start..end)
    }

    /// One `memmem` pass over every text.
    fn scan(&self, variant: &Variant, mut found: impl FnMut(usize)) {
        let bytes = self.text.as_bytes();
        let len = variant.text.len();
        let mut from = 0;
        while let Some(hit) = bytes.get(from..).and_then(|rest| variant.finder.find(rest)) {
            let at = from + hit;
            // The text holding byte `at`: the last one starting at or before it.
            let owner = self
                .starts
                .partition_point(|&start| start <= at)
                .saturating_sub(1);
            let Some(&end) = self.starts.get(owner + 1) else {
                return;
            };
            if at + len <= end {
                found(owner);
            }
            // Either this text contains the variant, or every later match
            // starting inside it also runs past its end: go on at the next.
            from = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn found(corpus: &Corpus, needle: &str) -> Vec<usize> {
        let mut hits = Vec::new();
        corpus.containing(&Variant::new(needle), |i| hits.push(i));
        hits
    }

    proptest! {
        #[test]
        fn finds_exactly_the_texts_containing_the_needle(
            texts in prop::collection::vec("[abc é]{0,12}", 0..30),
            needle in "[abc é]{1,4}",
        ) {
            let corpus = Corpus::new(texts.iter().map(String::as_str));
            let expected: Vec<usize> = texts
                .iter()
                .enumerate()
                .filter(|(_, t)| t.contains(needle.as_str()))
                .map(|(i, _)| i)
                .collect();
            prop_assert_eq!(found(&corpus, &needle), expected.clone());
            let mut scanned = Vec::new();
            corpus.scan(&Variant::new(&needle), |i| scanned.push(i));
            prop_assert_eq!(scanned, expected);
        }
    }

    proptest! {
        #[test]
        fn the_radix_sort_sorts_by_trigram_stably(pairs in prop::collection::vec((0_u64..1 << 24, 0_u64..50), 0..200)) {
            let packed: Vec<u64> = pairs.iter().map(|&(t, id)| t << 32 | id).collect();
            let mut expected = packed.clone();
            expected.sort_by_key(|p| p >> 32);
            prop_assert_eq!(sort_by_trigram(packed), expected);
        }
    }

    #[test]
    fn a_match_across_two_texts_is_no_match() {
        let corpus = Corpus::new(["xab", "cx", "", "abc"].into_iter());
        assert_eq!(found(&corpus, "abc"), [3]);
        assert_eq!(found(&corpus, "bc"), [3]);
        assert!(found(&corpus, "zzz").is_empty());
    }
}
