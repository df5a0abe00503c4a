//! `any_of`: an expectation met when one of its alternatives is. The
//! safety profile judges outcomes any sound design may reach ("the edit
//! lands exactly or is refused"), so it lists them instead of choosing.

use super::verdict::Failure;

/// Nothing when one alternative held (its failures are empty); otherwise a
/// failure of `what` saying none did, then every alternative's failures,
/// each named `any_of[n] <what>` (from 1), so a report shows why each one
/// missed.
pub(crate) fn any_of(what: &str, alternatives: Vec<Vec<Failure>>) -> Vec<Failure> {
    if alternatives.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    let mut failures = vec![Failure::new(
        what,
        format!(
            "none of the {} alternatives of `any_of` holds",
            alternatives.len()
        ),
    )];
    for (n, missed) in alternatives.into_iter().enumerate() {
        failures.extend(missed.into_iter().map(|failure| Failure {
            what: format!("any_of[{}] {}", n + 1, failure.what),
            ..failure
        }));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_alternative_holding_is_enough() {
        let missed = vec![Failure::new("status", "expected status success, got error")];
        assert_eq!(any_of("expect", vec![missed, Vec::new()]), Vec::new());
    }

    #[test]
    fn when_none_holds_every_alternative_says_why() {
        let first = vec![Failure::diff(
            "files[a]",
            "the bytes on disk differ",
            "x",
            "z",
        )];
        let second = vec![
            Failure::new("files[a]", "the mode differs"),
            Failure::new("files[a]", "it should be absent, but a file is there"),
        ];
        let failures = any_of("files[a]", vec![first, second]);
        let headlines: Vec<String> = failures.iter().map(Failure::headline).collect();
        assert_eq!(
            headlines,
            [
                "files[a]: none of the 2 alternatives of `any_of` holds",
                "any_of[1] files[a]: the bytes on disk differ",
                "any_of[2] files[a]: the mode differs",
                "any_of[2] files[a]: it should be absent, but a file is there",
            ]
        );
        // The diff of an alternative survives for the text report.
        assert_eq!(failures[1].expected.as_deref(), Some("x"));
        assert_eq!(failures[1].actual.as_deref(), Some("z"));
    }
}
