//! The read-only judgement's property, shared by the fuzz target and the
//! smoke test: no text makes [`classify`] panic, its answer is the same
//! twice, a read-only line splits into words, and a write appended to a
//! read-only line (a command, or a redirection) is never read-only.

use crate::shell_read_only::{Safety, classify};

/// Lines the smoke test and the fuzzer start from: each rule once.
pub const STARTING_LINES: &[&str] = &[
    "ls -la && pwd",
    "cat f | grep x 2>&1 | head -3",
    "find . -name '*.rs' -type f",
    "git log --oneline -5; git status",
    "sed -n '/a/p;3q' f",
    "awk -F: '{print $1}' f",
    "echo \"$HOME\" 'a|b' a\\;b",
    "sort -u f | uniq -c",
    "cd src && git diff",
    "grep pattern\\\nfile",
    "A=1",
];

/// Checks the property on one line.
///
/// # Errors
/// What broke, with the line.
pub fn check_shell_read_only(line: &str) -> Result<(), String> {
    let verdict = classify(line);
    if classify(line) != verdict {
        return Err(format!("{line:?}: two different verdicts"));
    }
    if verdict.safety != Safety::ReadOnly {
        return Ok(());
    }
    if shlex::split(line).is_none() {
        return Err(format!(
            "{line:?}: read-only but it does not split into words"
        ));
    }
    for write in ["\nrm x", "\n> x", "\ntouch x"] {
        let widened = format!("{line}{write}");
        if classify(&widened).safety == Safety::ReadOnly {
            return Err(format!("{widened:?}: a write appended is read-only"));
        }
    }
    Ok(())
}

/// The fuzz target's body: the bytes, read as text (invalid UTF-8
/// replaced), must keep the property.
///
/// # Panics
/// When the property breaks, naming the line.
#[allow(clippy::panic)] // A fuzz oracle reports failure by panicking.
pub fn fuzz_shell_read_only(data: &[u8]) {
    let line = String::from_utf8_lossy(data);
    if let Err(broken) = check_shell_read_only(&line) {
        panic!("{broken}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every starting line, and every prefix and suffix of it (half a quote, an
    /// operator with nothing after it), keeps the property.
    #[test]
    fn smoke() {
        for line in STARTING_LINES {
            for (at, _) in line.char_indices() {
                let (head, tail) = line.split_at(at);
                fuzz_shell_read_only(head.as_bytes());
                fuzz_shell_read_only(tail.as_bytes());
            }
            fuzz_shell_read_only(line.as_bytes());
        }
        fuzz_shell_read_only(&[0xff, b'l', b's', 0]);
    }

    #[test]
    fn the_starting_lines_are_read_only_so_the_appended_writes_are_checked() {
        for line in STARTING_LINES {
            assert_eq!(classify(line).safety, Safety::ReadOnly, "{line:?}");
        }
    }
}
