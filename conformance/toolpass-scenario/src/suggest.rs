//! "Did you mean" for names typed wrong: the nearest known name by edit
//! distance, when it is near enough to be a typo.

/// The candidate nearest to `word` by edit distance, when it is near enough
/// to be a typo.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .map(|candidate| (distance(word, candidate), candidate))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// ` (did you mean `x`?)` for the nearest candidate, or nothing.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    closest(word, candidates).map_or_else(String::new, |near| format!(" (did you mean `{near}`?)"))
}

/// `unknown <what> `text``, with the nearest known name when it looks like
/// a typo, or else every known name.
pub(crate) fn unknown(what: &str, text: &str, known: &[&str]) -> String {
    match closest(text, known.iter().copied()) {
        Some(near) => format!("unknown {what} `{text}`: did you mean `{near}`?"),
        None => format!(
            "unknown {what} `{text}`: known {what}s are {}",
            known.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn closest_finds_typos_only() {
        let words = ["prior_read", "sessions", "batch"];
        assert_eq!(closest("prior-read", words.into_iter()), Some("prior_read"));
        assert_eq!(closest("edit", words.into_iter()), None);
    }
}
