//! Placeholders: `{root}` and captured variables `{name}` in the strings a
//! scenario sends or expects, and [`Vars`], which substitutes them.
//!
//! The syntax, kept small so that code in arguments survives it:
//!
//! - `{name}` is a placeholder when `name` is an identifier (an ASCII letter
//!   or `_`, then letters, digits or `_`). `root` is the sandbox directory,
//!   absolute, without a trailing slash; other names are variables bound by
//!   earlier `capture` steps.
//! - `{{name}}` is the literal text `{name}`: doubling the braces of a
//!   placeholder escapes it (and `{{{name}}}` is the literal `{{name}}`).
//! - Every other brace is literal: `{}`, `{ x }`, `{"a": 1}`, `${1}`, `a{2,3}`
//!   and `style={{color: 1}}` pass through untouched.
//!
//! The loader rejects a placeholder whose name no earlier `capture` defines,
//! so a literal `{name}` written by mistake (a JS destructuring, a format
//! string) is an error that says to double the braces, never a silent change.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};

/// The name of the sandbox root placeholder.
pub const ROOT: &str = "root";

/// The name of the placeholder for the directory beside the root,
/// `<root>/../outside`: files a scenario places outside the session root
/// (`{outside}/secret.txt`), in the scenario's own private directory, so an
/// implementation that fails to confine paths reads or writes those and
/// never the machine's own files.
pub const OUTSIDE: &str = "outside";

/// How a sandbox path key (`files:`, `fs:`, `expect_files:`) names a file
/// beside the root rather than under it.
pub const OUTSIDE_PREFIX: &str = "{outside}/";

/// The scenario's private directory, the root's parent (`{root}/..`);
/// empty for a root with no parent.
pub fn private_of(root: &str) -> &str {
    root.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// The directory `{outside}` stands for, given the root.
pub fn outside_of(root: &str) -> String {
    format!("{}/{OUTSIDE}", private_of(root))
}

/// One piece of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// Text to copy as it is.
    Literal(&'a str),
    /// A placeholder's name.
    Var(&'a str),
}

/// Splits `text` into literal text and placeholders.
pub(crate) fn pieces(text: &str) -> Vec<Piece<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut literal_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'{' {
            i += 1;
            continue;
        }
        if let Some(end) = escaped_at(bytes, i) {
            // `{{name}}`: keep `{name}`, dropping one brace on each side.
            push_literal(&mut out, &text[literal_start..i]);
            push_literal(&mut out, &text[i + 1..end - 1]);
            i = end;
            literal_start = i;
        } else if let Some(end) = placeholder_at(bytes, i) {
            push_literal(&mut out, &text[literal_start..i]);
            out.push(Piece::Var(&text[i + 1..end - 1]));
            i = end;
            literal_start = i;
        } else {
            i += 1;
        }
    }
    push_literal(&mut out, &text[literal_start..]);
    out
}

fn push_literal<'a>(out: &mut Vec<Piece<'a>>, text: &'a str) {
    if !text.is_empty() {
        out.push(Piece::Literal(text));
    }
}

/// The end (exclusive) of `{name}` starting at `start`, if there is one.
fn placeholder_at(bytes: &[u8], start: usize) -> Option<usize> {
    let name_end = identifier_end(bytes, start + 1)?;
    (bytes.get(name_end) == Some(&b'}')).then_some(name_end + 1)
}

/// The end (exclusive) of `{{name}}` starting at `start`, if there is one.
fn escaped_at(bytes: &[u8], start: usize) -> Option<usize> {
    if bytes.get(start + 1) != Some(&b'{') {
        return None;
    }
    let name_end = identifier_end(bytes, start + 2)?;
    (bytes.get(name_end..name_end + 2) == Some(b"}}")).then_some(name_end + 2)
}

fn identifier_end(bytes: &[u8], start: usize) -> Option<usize> {
    let first = *bytes.get(start)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let len = bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    Some(start + len)
}

/// Whether `name` can be a variable's name.
pub(crate) fn is_identifier(name: &str) -> bool {
    identifier_end(name.as_bytes(), 0) == Some(name.len())
}

/// The template whose substitution is `text`, with the sandbox `root`
/// written `{root}`: every `{name}` in `text` is escaped by doubling its
/// braces (`{{name}}` becomes `{{{name}}}`), then `root` is replaced. For
/// writing observed text back into a scenario (`toolpass record`).
pub fn template_of(text: &str, root: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{'
            && let Some(end) = placeholder_at(bytes, i)
        {
            // Wrap the braces run this placeholder sits in with one more
            // pair: `{{` ... `}}` around it already, plus the new pair.
            out.push_str(&text[copied..i]);
            out.push('{');
            out.push_str(&text[i..end]);
            out.push('}');
            copied = end;
            i = end;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    if root.is_empty() {
        out
    } else {
        out.replace(root, "{root}")
    }
}

/// The names of the placeholders in `text`, in order, repeats included.
pub fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    pieces(text).into_iter().filter_map(|piece| match piece {
        Piece::Var(name) => Some(name),
        Piece::Literal(_) => None,
    })
}

/// The values placeholders stand for: the sandbox root, the directory
/// beside it, and the variables captured so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vars {
    root: String,
    outside: String,
    captured: BTreeMap<String, String>,
}

impl Vars {
    /// Values for a scenario run in the sandbox `root` (absolute; a trailing
    /// slash is dropped).
    pub fn new(root: impl Into<String>) -> Vars {
        let mut root = root.into();
        while root.len() > 1 && root.ends_with('/') {
            root.pop();
        }
        Vars {
            outside: outside_of(&root),
            root,
            captured: BTreeMap::new(),
        }
    }

    /// The sandbox root.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Binds a captured variable, replacing an earlier value.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.captured.insert(name.into(), value.into());
    }

    /// A placeholder's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        if name == ROOT {
            Some(&self.root)
        } else if name == OUTSIDE {
            Some(&self.outside)
        } else {
            self.captured.get(name).map(String::as_str)
        }
    }

    /// `text` with its placeholders replaced and its escapes undone.
    pub fn substitute(&self, text: &str) -> Result<String, Error> {
        self.substitute_with(text, |value, out| out.push_str(value))
    }

    /// `pattern` with its placeholders replaced by their values escaped as
    /// regex literals, so a root such as `/tmp/a.b+c` matches only itself.
    pub fn substitute_regex(&self, pattern: &str) -> Result<String, Error> {
        self.substitute_with(pattern, |value, out| {
            out.push_str(&regex::escape(value));
        })
    }

    /// A JSON value with every string substituted (keys are left alone:
    /// they are argument names, not text).
    pub fn substitute_json(&self, value: &Value) -> Result<Value, Error> {
        Ok(match value {
            Value::String(text) => Value::String(self.substitute(text)?),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.substitute_json(item))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(key, member)| Ok((key.clone(), self.substitute_json(member)?)))
                    .collect::<Result<Map<_, _>, Error>>()?,
            ),
            other => other.clone(),
        })
    }

    fn substitute_with(
        &self,
        text: &str,
        mut push_value: impl FnMut(&str, &mut String),
    ) -> Result<String, Error> {
        let mut out = String::with_capacity(text.len());
        for piece in pieces(text) {
            match piece {
                Piece::Literal(literal) => out.push_str(literal),
                Piece::Var(name) => {
                    let value = self.get(name).ok_or_else(|| {
                        Error::new(
                            ErrorKind::UndefinedVariable,
                            format!("substitute `{{{name}}}`: no variable `{name}` is bound"),
                        )
                    })?;
                    push_value(value, &mut out);
                }
            }
        }
        Ok(out)
    }
}
