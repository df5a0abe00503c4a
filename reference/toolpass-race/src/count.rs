//! What counts: pure functions that decide whether a reply leaked the
//! outside, which reported edits are missing from a file, and which names
//! are debris.
//!
//! Exactness rests on the markers. The outside files' contents carry one
//! random marker and their names another; neither ever appears in a request
//! the harness sends (the grep pattern is written so that it matches the
//! content marker without containing it). So a reply can contain a marker
//! only if the server read it from outside: a reply that *names* a refused
//! path (`{root}/d/x`, even `{outside}/x`) contains no marker and is not
//! counted, and an inside file never carries one.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

/// The random markers of one harness run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Markers {
    /// In every outside file's content, and nowhere else.
    pub(crate) secret: String,
    /// In the names of outside files, and nowhere else.
    pub(crate) name: String,
    /// In the names and contents of the innocent files inside the root, so
    /// a reply shows that the tool found something at all.
    pub(crate) inside: String,
    /// The seed all three end with.
    hex: String,
}

impl Markers {
    /// Markers made unique by `seed`.
    pub(crate) fn new(seed: u64) -> Markers {
        let hex = format!("{seed:016x}");
        Markers {
            secret: format!("OUTSIDE-SECRET-{hex}"),
            name: format!("OUTSIDE-NAME-{hex}"),
            inside: format!("INSIDE-{hex}"),
            hex,
        }
    }

    /// Markers with a seed nobody can guess, so that no file that happens
    /// to exist can carry them.
    pub(crate) fn random() -> Markers {
        // std's RandomState is seeded from the OS: a random u64 without a
        // crate for it.
        Markers::new(RandomState::new().hash_one(std::process::id()))
    }

    /// A `grep_search` pattern matching both the inside and the secret
    /// marker. `[T]` keeps either marker itself out of the pattern, because
    /// a reply that echoes its pattern ("No matches found for ...") must
    /// not count as a leak.
    pub(crate) fn grep_pattern(&self) -> String {
        format!("INSID[E]-{0}|OUTSIDE-SECRE[T]-{0}", self.hex)
    }
}

/// What one reply gave away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Leak {
    /// It contains outside content.
    pub(crate) content: bool,
    /// It contains an outside name.
    pub(crate) name: bool,
    /// It contains an inside name or inside content (the tool worked).
    pub(crate) inside: bool,
}

/// Classifies a reply, given as the whole JSON text of its result (so a
/// leak in any member counts, not only in the model's text).
pub(crate) fn leak(markers: &Markers, reply: &str) -> Leak {
    Leak {
        content: reply.contains(&markers.secret),
        name: reply.contains(&markers.name),
        inside: reply.contains(&markers.inside),
    }
}

/// The tokens reported as written that the final text lacks. A token counts
/// as present only as a whole line, so `A-1` is not found inside `A-17`.
pub(crate) fn missing<'a>(reported: &'a [String], text: &str) -> Vec<&'a str> {
    let lines: HashSet<&str> = text.lines().collect();
    reported
        .iter()
        .map(String::as_str)
        .filter(|token| !lines.contains(token))
        .collect()
}

/// Whether `name` is a temporary file the reference's atomic write names
/// `.<target>.toolpass-<pid>-<n>.tmp`: any hidden `.tmp` counts, so a
/// renamed scheme is still caught.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Whether `name` is one of the reference's per-session spill directories.
pub(crate) fn is_spill_dir(name: &str) -> bool {
    name.starts_with("toolpass-spill-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markers() -> Markers {
        Markers::new(0xabc)
    }

    #[test]
    fn markers_carry_the_seed() {
        let m = markers();
        assert_eq!(m.secret, "OUTSIDE-SECRET-0000000000000abc");
        assert_eq!(m.name, "OUTSIDE-NAME-0000000000000abc");
        assert_eq!(m.inside, "INSIDE-0000000000000abc");
        assert_ne!(Markers::random(), Markers::random());
    }

    #[test]
    fn the_grep_pattern_matches_both_markers_but_contains_neither_secret() {
        let m = markers();
        let pattern = m.grep_pattern();
        assert!(!pattern.contains(&m.secret), "{pattern}");
        assert!(!pattern.contains(&m.inside), "{pattern}");
        // The pattern is Rust regex syntax, as grep_search's engine reads it.
        let regex = regex::Regex::new(&pattern).unwrap();
        assert!(regex.is_match(&format!("{} x", m.secret)));
        assert!(regex.is_match(&format!("{} x", m.inside)));
        assert!(
            !regex.is_match(&pattern),
            "the pattern matches its own echo"
        );
        assert_eq!(
            pattern,
            "INSID[E]-0000000000000abc|OUTSIDE-SECRE[T]-0000000000000abc"
        );
    }

    #[test]
    fn a_reply_with_outside_content_is_a_leak() {
        let m = markers();
        let reply = format!(r#"{{"llmContent":"{} x\n"}}"#, m.secret);
        assert_eq!(
            leak(&m, &reply),
            Leak {
                content: true,
                name: false,
                inside: false
            }
        );
    }

    #[test]
    fn a_reply_that_names_the_refused_path_is_no_leak() {
        let m = markers();
        for reply in [
            "File path must be within the workspace: /tmp/toolpass-race-1/read_file/root/d/x",
            "path_not_in_workspace: /tmp/toolpass-race-1/read_file/outside/x",
            "No matches found for pattern \"INSID[E]-0000000000000abc|OUTSIDE-SECRE[T]-0000000000000abc\"",
            "No files found matching pattern \"**/*\" within /tmp/x/outside",
        ] {
            assert_eq!(leak(&m, reply), Leak::default(), "{reply}");
        }
    }

    #[test]
    fn inside_content_and_outside_names_are_told_apart() {
        let m = markers();
        let listing = format!("Directory listing:\n{}-0.txt\nf\nx", m.name);
        assert!(leak(&m, &listing).name && !leak(&m, &listing).content);
        let inside = format!("L1: {} x", m.inside);
        assert_eq!(
            leak(&m, &inside),
            Leak {
                inside: true,
                ..Leak::default()
            }
        );
    }

    #[test]
    fn missing_tokens_are_matched_as_whole_lines() {
        let reported = ["A-1", "A-17", "B-2"].map(String::from);
        let text = "head\nA-17\nB-2\nEND\n";
        assert_eq!(missing(&reported, text), ["A-1"]);
        assert!(missing(&reported, "A-1\nA-17\nB-2\n").is_empty());
        assert!(missing(&[], "").is_empty());
    }

    #[test]
    fn temp_and_spill_names() {
        assert!(is_temp_name(".big-3.bin.toolpass-4242-0.tmp"));
        assert!(!is_temp_name("big-3.bin"));
        assert!(!is_temp_name("notes.tmp"));
        assert!(is_spill_dir("toolpass-spill-Ab12"));
        assert!(!is_spill_dir("spill"));
    }
}
