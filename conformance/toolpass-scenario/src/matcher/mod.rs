//! Matchers on text: what a scenario expects of `llmContent`, a notice, a
//! file's content. [`Matcher::check`] is a pure function of the actual
//! text; a failure is a [`Mismatch`] with the expected and actual text for a
//! diff.
//!
//! Written as a plain string (equality), a map of conditions that must all
//! hold (`{contains: [a, b], not_contains: c, lines: 3}`), or a list of
//! either. Strings are templates (see [`crate::placeholder`]): call
//! [`Matcher::substitute`] before [`Matcher::check`], which takes every
//! string literally.

use std::fmt;

use crate::error::Error;
use crate::forms::Range;
use crate::located::Located;
use crate::placeholder::Vars;

mod pattern;
mod snapshot;
mod syntax;

pub use pattern::Pattern;
pub use snapshot::{Snapshot, SnapshotName};

/// Conditions on a text; all must hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Matcher {
    conditions: Vec<Condition>,
}

/// One condition of a [`Matcher`].
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// The text is exactly this.
    Equals(Located<String>),
    /// The text contains this.
    Contains(Located<String>),
    /// The text does not contain this.
    NotContains(Located<String>),
    /// The regex matches somewhere in the text.
    Regex(Pattern),
    /// The text starts with this.
    StartsWith(Located<String>),
    /// The text ends with this.
    EndsWith(Located<String>),
    /// The number of lines (as `str::lines` counts them: a final newline
    /// does not start another line) is in the range.
    Lines(Located<Range>),
    /// The number of characters (Unicode scalar values) is in the range.
    Chars(Located<Range>),
    /// The text equals a snapshot file next to the scenario.
    Snapshot(Snapshot),
}

/// Why a text does not satisfy a matcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub(crate) condition: &'static str,
    pub(crate) message: String,
    pub(crate) expected: String,
    pub(crate) actual: String,
}

impl Matcher {
    /// A matcher of these conditions.
    pub fn new(conditions: Vec<Condition>) -> Matcher {
        Matcher { conditions }
    }

    /// Equality with `text`.
    pub fn equals(text: impl Into<String>) -> Matcher {
        Matcher::new(vec![Condition::Equals(Located::unknown(text.into()))])
    }

    /// The conditions, in the order written.
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// The first condition `actual` fails, if any.
    pub fn check(&self, actual: &str) -> Result<(), Mismatch> {
        self.conditions.iter().try_for_each(|c| c.check(actual))
    }

    /// The matcher with placeholders substituted from `vars` (regex
    /// placeholders as escaped literals) and regexes compiled, ready for
    /// [`Matcher::check`]. Snapshots learn the root to write as `{root}`.
    pub fn substitute(&self, vars: &Vars) -> Result<Matcher, Error> {
        let text = |s: &Located<String>| -> Result<Located<String>, Error> {
            Ok(Located::new(vars.substitute(s)?, s.pos))
        };
        let conditions = self
            .conditions
            .iter()
            .map(|condition| {
                Ok(match condition {
                    Condition::Equals(s) => Condition::Equals(text(s)?),
                    Condition::Contains(s) => Condition::Contains(text(s)?),
                    Condition::NotContains(s) => Condition::NotContains(text(s)?),
                    Condition::StartsWith(s) => Condition::StartsWith(text(s)?),
                    Condition::EndsWith(s) => Condition::EndsWith(text(s)?),
                    Condition::Regex(pattern) => Condition::Regex(pattern.substitute(vars)?),
                    Condition::Snapshot(snapshot) => {
                        Condition::Snapshot(snapshot.with_root(vars.root()))
                    }
                    other @ (Condition::Lines(_) | Condition::Chars(_)) => other.clone(),
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Matcher { conditions })
    }

    /// Writes every snapshot of this matcher that `actual` does not match,
    /// and returns how many were written (bless mode).
    pub fn bless(&self, actual: &str) -> Result<usize, Error> {
        let mut written = 0;
        for condition in &self.conditions {
            if let Condition::Snapshot(snapshot) = condition
                && snapshot.check(actual).is_err()
            {
                snapshot.write(actual)?;
                written += 1;
            }
        }
        Ok(written)
    }

    pub(crate) fn snapshots_mut(&mut self) -> impl Iterator<Item = &mut Snapshot> {
        self.conditions.iter_mut().filter_map(|c| match c {
            Condition::Snapshot(snapshot) => Some(snapshot),
            _ => None,
        })
    }
}

impl Condition {
    /// The key the condition is written with.
    pub fn key(&self) -> &'static str {
        match self {
            Condition::Equals(_) => "equals",
            Condition::Contains(_) => "contains",
            Condition::NotContains(_) => "not_contains",
            Condition::Regex(_) => "regex",
            Condition::StartsWith(_) => "starts_with",
            Condition::EndsWith(_) => "ends_with",
            Condition::Lines(_) => "lines",
            Condition::Chars(_) => "chars",
            Condition::Snapshot(_) => "snapshot",
        }
    }

    /// Whether `actual` satisfies the condition.
    pub fn check(&self, actual: &str) -> Result<(), Mismatch> {
        let fail = |message: String, expected: &str| {
            Err(Mismatch {
                condition: self.key(),
                message,
                expected: expected.to_owned(),
                actual: actual.to_owned(),
            })
        };
        match self {
            Condition::Equals(expected) if actual != expected.as_str() => {
                fail("differs from the expected text".into(), expected)
            }
            Condition::Contains(needle) if !actual.contains(needle.as_str()) => {
                fail(format!("does not contain {:?}", needle.as_str()), needle)
            }
            Condition::NotContains(needle) => match actual.find(needle.as_str()) {
                Some(at) => {
                    let line = actual[..at].matches('\n').count() + 1;
                    fail(
                        format!("contains {:?} (line {line})", needle.as_str()),
                        needle,
                    )
                }
                None => Ok(()),
            },
            Condition::Regex(pattern) => pattern.check(actual).map_err(|message| Mismatch {
                condition: "regex",
                message,
                expected: pattern.source().value.clone(),
                actual: actual.to_owned(),
            }),
            Condition::StartsWith(prefix) if !actual.starts_with(prefix.as_str()) => {
                fail(format!("does not start with {:?}", prefix.as_str()), prefix)
            }
            Condition::EndsWith(suffix) if !actual.ends_with(suffix.as_str()) => {
                fail(format!("does not end with {:?}", suffix.as_str()), suffix)
            }
            Condition::Lines(range) => {
                let n = actual.lines().count() as u64;
                count_check(n, range, "lines").or_else(|m| fail(m, &range.to_string()))
            }
            Condition::Chars(range) => {
                let n = actual.chars().count() as u64;
                count_check(n, range, "characters").or_else(|m| fail(m, &range.to_string()))
            }
            Condition::Snapshot(snapshot) => snapshot.check(actual),
            _ => Ok(()),
        }
    }
}

fn count_check(n: u64, range: &Range, unit: &str) -> Result<(), String> {
    if range.contains(n) {
        Ok(())
    } else {
        Err(format!("has {n} {unit}, expected {range}"))
    }
}

impl Mismatch {
    /// The key of the failed condition (`equals`, `contains`, ...).
    pub fn condition(&self) -> &'static str {
        self.condition
    }

    /// One line saying what is wrong, e.g. `does not contain "x"`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What was expected: the whole text for `equals` and `snapshot`, the
    /// needle, regex or range otherwise.
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// The actual text (for a snapshot: with the root written `{root}`).
    pub fn actual(&self) -> &str {
        &self.actual
    }

    /// Whether `expected` and `actual` are two versions of one text, worth a
    /// line diff (`equals`, `snapshot`, a JSON subset).
    pub fn is_diffable(&self) -> bool {
        matches!(self.condition, "equals" | "snapshot" | "json")
    }

    pub(crate) fn json(message: String, expected: String, actual: String) -> Mismatch {
        Mismatch {
            condition: "json",
            message,
            expected,
            actual,
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.condition, self.message)
    }
}

impl std::error::Error for Mismatch {}
