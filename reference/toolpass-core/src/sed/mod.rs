//! `sed -i` interception, the pure half: which shell commands are a
//! substitution on one file that the tool layer can run as an edit (with a
//! diff, a prior-read check and a guarded write) instead of letting sed
//! rewrite the file unseen, and what the file becomes.
//!
//! The accepted command shapes are Qwen Code 0.24.4's
//! (`parseSedEditCommand`, `packages/core/src/utils/sedEditParser.ts`); the
//! substitution is emulated with GNU sed's semantics, not JavaScript's, and
//! a few safe substitutions Qwen refuses are taken on (any ASCII
//! punctuation as the delimiter, the `I` flag, `\n` in the replacement, a
//! quantified group with an alternation, which Rust's engines run in
//! linear time). SPEC.md's `shell.sed.*` clauses state the rules.
//!
//! - [`plan`]: a command line to a [`Plan`] (the file as written and the
//!   [`Substitution`]) or the reason it stays a shell command.
//! - [`Program`]: a substitution compiled for a [`Dialect`], run over a
//!   file's bytes; an [`EmulationError`] means "let the real sed run".

mod command;
mod emulate;
mod regex;
mod replacement;
mod script;

pub(crate) use command::starts_with_assignment;
pub use command::{Call, NotIntercepted, Plan, plan};
pub use emulate::{Dialect, EmulationError, Options, Program};
pub use regex::{RegexError, Syntax};
pub use replacement::{Piece, Replacement, ReplacementError};
pub use script::{Flags, ScriptError, Substitution, parse_script};

/// Emulates `substitution` over a file's bytes: compiles it and applies it.
///
/// # Errors
/// An [`EmulationError`]: the caller lets the real sed run.
pub fn emulate(
    substitution: &Substitution,
    text: &[u8],
    options: Options,
) -> Result<String, EmulationError> {
    Program::new(substitution, options)?.apply(text)
}

#[cfg(test)]
mod tests;
