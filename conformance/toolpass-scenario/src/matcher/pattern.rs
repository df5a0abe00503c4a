//! [`Pattern`]: a regex condition or capture, compiled once its
//! placeholders are substituted.

use crate::error::{Error, ErrorKind};
use crate::located::Located;
use crate::placeholder::{self, Piece, Vars};

/// A regex: Rust `regex` syntax, unanchored, no flags unless written inline
/// (`(?m)`, `(?s)`, ...). Placeholders are substituted as escaped literals.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: Located<String>,
    /// The regex ready to run: compiled at once when the source has no
    /// placeholders, else by [`Pattern::substitute`].
    compiled: Option<regex::Regex>,
}

impl Pattern {
    /// A pattern as written. Without placeholders it is ready to run (with
    /// its `{{name}}` escapes undone); with them, it needs
    /// [`Pattern::substitute`] first.
    pub fn new(source: Located<String>) -> Pattern {
        let pieces = placeholder::pieces(&source);
        let compiled = if pieces.iter().any(|p| matches!(p, Piece::Var(_))) {
            None
        } else {
            let text: String = pieces
                .iter()
                .map(|p| match p {
                    Piece::Literal(text) | Piece::Var(text) => *text,
                })
                .collect();
            regex::Regex::new(&text).ok()
        };
        Pattern { source, compiled }
    }

    /// The regex as written.
    pub fn source(&self) -> &Located<String> {
        &self.source
    }

    /// The pattern with its placeholders substituted from `vars` and
    /// compiled.
    pub fn substitute(&self, vars: &Vars) -> Result<Pattern, Error> {
        let text = vars.substitute_regex(&self.source)?;
        let compiled = regex::Regex::new(&text).map_err(|e| {
            Error::new(
                ErrorKind::Regex,
                format!("compile the regex {:?}", self.source.as_str()),
            )
            .with_source(e)
        })?;
        Ok(Pattern {
            source: self.source.clone(),
            compiled: Some(compiled),
        })
    }

    /// The compiled regex, when the pattern is ready to run.
    pub fn regex(&self) -> Option<&regex::Regex> {
        self.compiled.as_ref()
    }

    /// What a `capture` binds: the first group of the first match (the
    /// whole match when the regex has no group); `None` when nothing
    /// matches, the group did not take part, or the pattern still has
    /// placeholders.
    pub fn capture<'t>(&self, text: &'t str) -> Option<&'t str> {
        let captures = self.compiled.as_ref()?.captures(text)?;
        let group = if captures.len() > 1 { 1 } else { 0 };
        captures.get(group).map(|m| m.as_str())
    }

    /// Whether the regex matches somewhere in `actual`; the message when not.
    pub(super) fn check(&self, actual: &str) -> Result<(), String> {
        let Some(compiled) = &self.compiled else {
            return Err(format!(
                "the regex {:?} has placeholders: substitute it before checking",
                self.source.as_str()
            ));
        };
        if compiled.is_match(actual) {
            Ok(())
        } else {
            Err(format!("does not match the regex {:?}", compiled.as_str()))
        }
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}
