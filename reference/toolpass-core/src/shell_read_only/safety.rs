//! The three answers of Qwen Code's shell safety classifier
//! (`classifyShellCommandSafety` in `packages/core/src/utils/
//! shellAstParser.ts`) and how they combine.

/// What running a command would do, as far as can be told from its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Safety {
    /// It only reads: it may run without asking.
    ReadOnly,
    /// It would change something (a file, a repository, a process).
    Write,
    /// It cannot be told: anything not understood lands here, and asks.
    Unknown,
}

impl Safety {
    /// Qwen's `mergeSafety`: a write anywhere makes the whole a write, else
    /// an unknown part makes it unknown.
    #[must_use]
    pub fn merge(self, other: Self) -> Self {
        match (self, other) {
            (Self::Write, _) | (_, Self::Write) => Self::Write,
            (Self::Unknown, _) | (_, Self::Unknown) => Self::Unknown,
            (Self::ReadOnly, Self::ReadOnly) => Self::ReadOnly,
        }
    }

    /// All of `parts` merged; read-only when there are none.
    pub fn all(parts: impl IntoIterator<Item = Self>) -> Self {
        parts.into_iter().fold(Self::ReadOnly, Self::merge)
    }

    /// `Unknown` when `doubt`, else `self` (Qwen's `mergeSafety(result,
    /// "unknown")` under a condition).
    #[must_use]
    pub fn doubted_if(self, doubt: bool) -> Self {
        if doubt {
            self.merge(Self::Unknown)
        } else {
            self
        }
    }
}

/// Qwen's `beforeTerminator`: the arguments before the first `--`.
pub(super) fn before_terminator(args: &[String]) -> &[String] {
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.get(..end).unwrap_or(args)
}

/// Qwen's `hasHelp`: `--help` or `--version` (any case) before `--`, not
/// as the value of one of `value_options`.
pub(super) fn has_help(args: &[String], value_options: &[&str]) -> bool {
    let options = before_terminator(args);
    options.iter().enumerate().any(|(i, arg)| {
        let help = arg.eq_ignore_ascii_case("--help") || arg.eq_ignore_ascii_case("--version");
        let is_value = i
            .checked_sub(1)
            .and_then(|p| options.get(p))
            .is_some_and(|prev| value_options.contains(&prev.as_str()));
        help && !is_value
    })
}

/// Qwen's `withoutOptionValues`: `args` without the word after each option
/// `takes_value` accepts.
pub(super) fn without_option_values(
    args: &[String],
    takes_value: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut kept = Vec::with_capacity(args.len());
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        kept.push(arg.clone());
        if takes_value(arg) {
            words.next();
        }
    }
    kept
}

/// Qwen's `WRITE_ROOT_COMMAND`.
pub(super) const WRITING_PROGRAMS: &[&str] = &[
    "chgrp", "chmod", "chown", "cp", "install", "ln", "mkdir", "mkfifo", "mknod", "mv", "rename",
    "rm", "rmdir", "shred", "touch", "truncate", "unlink",
];

/// Qwen's `evaluateOutputOption`: a write when `-o FILE` (short) or
/// `--output FILE`/`--output=FILE` (long) names a file, unknown when the
/// file is missing; `None` without such an option.
pub(super) fn output_option(args: &[String], long: bool, short: bool) -> Option<Safety> {
    for (i, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        if (short && arg == "-o") || (long && arg == "--output") {
            let named = args.get(i + 1).is_some_and(|next| !next.is_empty());
            return Some(if named {
                Safety::Write
            } else {
                Safety::Unknown
            });
        }
        if short && arg.starts_with("-o") && arg.len() > 2 {
            return Some(Safety::Write);
        }
        if long && let Some(file) = arg.strip_prefix("--output=") {
            return Some(if file.is_empty() {
                Safety::Unknown
            } else {
                Safety::Write
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_dominates_unknown_dominates_read_only() {
        use Safety::*;
        assert_eq!(ReadOnly.merge(Unknown), Unknown);
        assert_eq!(Unknown.merge(Write), Write);
        assert_eq!(Safety::all([ReadOnly, ReadOnly]), ReadOnly);
        assert_eq!(Safety::all([]), ReadOnly);
        assert_eq!(Write.doubted_if(true), Write);
        assert_eq!(ReadOnly.doubted_if(true), Unknown);
    }
}
