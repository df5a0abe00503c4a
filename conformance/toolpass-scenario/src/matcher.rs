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

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorKind};
use crate::forms::{OneOrMany, Range};
use crate::located::{Located, Pos};
use crate::placeholder::{ROOT, Vars};

/// Conditions on a text; all must hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Matcher {
    conditions: Vec<Condition>,
}

/// One condition of a [`Matcher`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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

/// A regex (Rust `regex` syntax, unanchored, no flags unless written as
/// `(?m)` and the like).
#[derive(Debug, Clone)]
pub struct Pattern {
    source: Located<String>,
    compiled: Option<regex::Regex>,
}

/// A snapshot condition: the text equals the file
/// `<scenario>.<name>.snap` next to the scenario, with the sandbox root
/// written as `{root}` (so the file is the same on every run).
#[derive(Debug, Clone)]
pub struct Snapshot {
    name: Located<SnapshotName>,
    file: Option<PathBuf>,
    expected: Option<String>,
    root: Option<String>,
}

/// How a snapshot is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotName {
    /// `snapshot: true`: named after the step's number, from 1.
    Step,
    /// `snapshot: <name>`: named so (letters, digits, `-`, `_`).
    Named(String),
}

/// Why a text does not satisfy a matcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    condition: &'static str,
    message: String,
    expected: String,
    actual: String,
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
                    Condition::Regex(pattern) => {
                        let source = vars.substitute_regex(&pattern.source)?;
                        Condition::Regex(Pattern::compile(Located::new(
                            source,
                            pattern.source.pos,
                        ))?)
                    }
                    Condition::Snapshot(snapshot) => Condition::Snapshot(Snapshot {
                        root: Some(vars.root().to_owned()),
                        ..snapshot.clone()
                    }),
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
                expected: pattern.source.value.clone(),
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

impl Pattern {
    /// A pattern as written, compiled now when it has no placeholders.
    pub fn new(source: Located<String>) -> Pattern {
        let compiled = if crate::placeholder::placeholders(&source).next().is_none() {
            regex::Regex::new(&source).ok()
        } else {
            None
        };
        Pattern { source, compiled }
    }

    fn compile(source: Located<String>) -> Result<Pattern, Error> {
        let compiled = regex::Regex::new(&source).map_err(|e| {
            Error::new(
                ErrorKind::Regex,
                format!("compile the regex {:?}", source.as_str()),
            )
            .with_source(e)
        })?;
        Ok(Pattern {
            source,
            compiled: Some(compiled),
        })
    }

    /// The regex as written.
    pub fn source(&self) -> &Located<String> {
        &self.source
    }

    fn check(&self, actual: &str) -> Result<(), String> {
        let compiled = match &self.compiled {
            Some(compiled) => Cow::Borrowed(compiled),
            None => Cow::Owned(
                regex::Regex::new(&self.source)
                    .map_err(|e| format!("the regex does not compile: {e}"))?,
            ),
        };
        if compiled.is_match(actual) {
            Ok(())
        } else {
            Err(format!(
                "does not match the regex {:?}",
                self.source.as_str()
            ))
        }
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl Snapshot {
    /// A snapshot condition, not yet tied to a file.
    pub fn new(name: SnapshotName) -> Snapshot {
        Snapshot {
            name: Located::unknown(name),
            file: None,
            expected: None,
            root: None,
        }
    }

    /// The name as written.
    pub fn name(&self) -> &Located<SnapshotName> {
        &self.name
    }

    /// The snapshot file, once the loader has tied the condition to its
    /// scenario.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The snapshot's text, when the file exists.
    pub fn expected(&self) -> Option<&str> {
        self.expected.as_deref()
    }

    pub(crate) fn attach(&mut self, file: PathBuf, expected: Option<String>) {
        self.file = Some(file);
        self.expected = expected;
    }

    /// `actual` as the snapshot stores it: the sandbox root, when known,
    /// written as `{root}`.
    pub fn normalize<'a>(&self, actual: &'a str) -> Cow<'a, str> {
        match &self.root {
            Some(root) if !root.is_empty() && actual.contains(root.as_str()) => {
                Cow::Owned(actual.replace(root.as_str(), &format!("{{{ROOT}}}")))
            }
            _ => Cow::Borrowed(actual),
        }
    }

    fn check(&self, actual: &str) -> Result<(), Mismatch> {
        let normalized = self.normalize(actual);
        let file = self
            .file
            .as_deref()
            .map_or_else(|| "(no file)".to_owned(), |f| f.display().to_string());
        match &self.expected {
            Some(expected) if *expected == normalized => Ok(()),
            Some(expected) => Err(Mismatch {
                condition: "snapshot",
                message: format!("differs from the snapshot {file}"),
                expected: expected.clone(),
                actual: normalized.into_owned(),
            }),
            None => Err(Mismatch {
                condition: "snapshot",
                message: format!("has no snapshot yet: bless to write {file}"),
                expected: String::new(),
                actual: normalized.into_owned(),
            }),
        }
    }

    fn write(&self, actual: &str) -> Result<(), Error> {
        let file = self.file.as_deref().ok_or_else(|| {
            Error::new(
                ErrorKind::NoSnapshotFile,
                "write a snapshot: the scenario was not loaded from a directory",
            )
        })?;
        std::fs::write(file, self.normalize(actual).as_bytes()).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("write the snapshot {}", file.display()),
            )
            .with_source(e)
        })
    }
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        self.name == other.name
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

/// The conditions keys, for error messages and the schema.
pub(crate) const KEYS: &[&str] = &[
    "equals",
    "contains",
    "not_contains",
    "regex",
    "starts_with",
    "ends_with",
    "lines",
    "chars",
    "snapshot",
];

/// A matcher map as written.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "MatcherConditions", extend("minProperties" = 1))]
struct Conditions {
    /// The text is exactly this (a plain string means the same).
    #[serde(default)]
    equals: Option<OneOrMany<String>>,
    /// The text contains each of these.
    #[serde(default)]
    contains: Option<OneOrMany<String>>,
    /// The text contains none of these.
    #[serde(default)]
    not_contains: Option<OneOrMany<String>>,
    /// Each regex (Rust `regex` syntax) matches somewhere in the text;
    /// placeholders are substituted as escaped literals.
    #[serde(default)]
    regex: Option<OneOrMany<String>>,
    /// The text starts with this.
    #[serde(default)]
    starts_with: Option<OneOrMany<String>>,
    /// The text ends with this.
    #[serde(default)]
    ends_with: Option<OneOrMany<String>>,
    /// The number of lines: `3` or `{min, max}`.
    #[serde(default)]
    lines: Option<Located<Range>>,
    /// The number of characters: `100` or `{min, max}`.
    #[serde(default)]
    chars: Option<Located<Range>>,
    /// The text equals `<scenario>.<name>.snap` next to the scenario;
    /// `true` names it after the step number.
    #[serde(default)]
    snapshot: Option<Located<SnapshotName>>,
}

impl Conditions {
    fn into_conditions<E: de::Error>(self, out: &mut Vec<Condition>) -> Result<(), E> {
        let before = out.len();
        let texts = |list: Option<OneOrMany<String>>| list.map(|l| l.0).unwrap_or_default();
        out.extend(texts(self.equals).into_iter().map(Condition::Equals));
        out.extend(texts(self.contains).into_iter().map(Condition::Contains));
        out.extend(
            texts(self.not_contains)
                .into_iter()
                .map(Condition::NotContains),
        );
        out.extend(
            texts(self.regex)
                .into_iter()
                .map(|s| Condition::Regex(Pattern::new(s))),
        );
        out.extend(
            texts(self.starts_with)
                .into_iter()
                .map(Condition::StartsWith),
        );
        out.extend(texts(self.ends_with).into_iter().map(Condition::EndsWith));
        out.extend(self.lines.map(Condition::Lines));
        out.extend(self.chars.map(Condition::Chars));
        out.extend(self.snapshot.map(|name| {
            Condition::Snapshot(Snapshot {
                name,
                ..Snapshot::new(SnapshotName::Step)
            })
        }));
        if out.len() == before {
            return Err(E::custom(format!(
                "a matcher needs one of {}",
                KEYS.join(", ")
            )));
        }
        Ok(())
    }
}

/// A string or a map: one item of a matcher list.
struct Item(Vec<Condition>);

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Item, D::Error> {
        let item = Located::<ItemForm>::deserialize(deserializer)?;
        Ok(Item(item.value.into_conditions(item.pos)))
    }
}

enum ItemForm {
    Text(String),
    Conditions(Vec<Condition>),
    List(Vec<Condition>),
}

impl ItemForm {
    fn into_conditions(self, pos: Pos) -> Vec<Condition> {
        match self {
            ItemForm::Text(text) => vec![Condition::Equals(Located::new(text, pos))],
            ItemForm::Conditions(conditions) | ItemForm::List(conditions) => conditions,
        }
    }
}

struct ItemVisitor {
    allow_list: bool,
}

impl<'de> Deserialize<'de> for ItemForm {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ItemForm, D::Error> {
        deserializer.deserialize_any(ItemVisitor { allow_list: true })
    }
}

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = ItemForm;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.allow_list {
            f.write_str("a matcher: a string, a map of conditions or a list of them")
        } else {
            f.write_str("a matcher: a string or a map of conditions")
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ItemForm, E> {
        Ok(ItemForm::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<ItemForm, E> {
        Ok(ItemForm::Text(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<ItemForm, E> {
        Ok(ItemForm::Text(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<ItemForm, E> {
        Ok(ItemForm::Text(v.to_string()))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<ItemForm, E> {
        Ok(ItemForm::Text(v.to_string()))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ItemForm, A::Error> {
        let conditions = Conditions::deserialize(de::value::MapAccessDeserializer::new(map))?;
        let mut out = Vec::new();
        conditions.into_conditions::<A::Error>(&mut out)?;
        Ok(ItemForm::Conditions(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ItemForm, A::Error> {
        if !self.allow_list {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<ListItem>()? {
            out.extend(item.0);
        }
        if out.is_empty() {
            return Err(de::Error::custom(
                "an empty list of matchers checks nothing",
            ));
        }
        Ok(ItemForm::List(out))
    }
}

/// An item inside a matcher list: a string or a map, not another list.
struct ListItem(Vec<Condition>);

impl<'de> Deserialize<'de> for ListItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ListItem, D::Error> {
        struct Inner(ItemForm);
        impl<'de> Deserialize<'de> for Inner {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Inner, D::Error> {
                deserializer
                    .deserialize_any(ItemVisitor { allow_list: false })
                    .map(Inner)
            }
        }
        let item = Located::<Inner>::deserialize(deserializer)?;
        Ok(ListItem(item.value.0.into_conditions(item.pos)))
    }
}

impl<'de> Deserialize<'de> for Matcher {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Matcher, D::Error> {
        Item::deserialize(deserializer).map(|item| Matcher::new(item.0))
    }
}

impl<'de> Deserialize<'de> for SnapshotName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SnapshotName, D::Error> {
        struct NameVisitor;

        impl<'de> Visitor<'de> for NameVisitor {
            type Value = SnapshotName;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true` or a snapshot name")
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<SnapshotName, E> {
                if v {
                    Ok(SnapshotName::Step)
                } else {
                    Err(E::custom("`snapshot: false` checks nothing: remove it"))
                }
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<SnapshotName, E> {
                Ok(SnapshotName::Named(v.to_owned()))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<SnapshotName, E> {
                Ok(SnapshotName::Named(v.to_string()))
            }
        }

        deserializer.deserialize_any(NameVisitor)
    }
}

impl Serialize for SnapshotName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SnapshotName::Step => serializer.serialize_bool(true),
            SnapshotName::Named(name) => serializer.serialize_str(name),
        }
    }
}

impl JsonSchema for SnapshotName {
    fn schema_name() -> Cow<'static, str> {
        "SnapshotName".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "const": true },
                { "type": "string", "pattern": "^[A-Za-z0-9_-]+$" },
            ],
        })
    }
}

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Condition::Equals(s)
            | Condition::Contains(s)
            | Condition::NotContains(s)
            | Condition::StartsWith(s)
            | Condition::EndsWith(s) => map.serialize_entry(self.key(), s)?,
            Condition::Regex(pattern) => map.serialize_entry(self.key(), &pattern.source)?,
            Condition::Lines(range) | Condition::Chars(range) => {
                map.serialize_entry(self.key(), range)?;
            }
            Condition::Snapshot(snapshot) => map.serialize_entry(self.key(), &snapshot.name)?,
        }
        map.end()
    }
}

/// A plain string for a lone `equals`, a map for a lone condition, a list
/// of those otherwise.
impl Serialize for Matcher {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Written<'a>(&'a Condition);
        impl Serialize for Written<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self.0 {
                    Condition::Equals(text) => text.serialize(serializer),
                    other => other.serialize(serializer),
                }
            }
        }
        match self.conditions.as_slice() {
            [one] => Written(one).serialize(serializer),
            many => serializer.collect_seq(many.iter().map(Written)),
        }
    }
}

impl JsonSchema for Matcher {
    fn schema_name() -> Cow<'static, str> {
        "Matcher".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let conditions = generator.subschema_for::<Conditions>();
        json_schema!({
            "description": "A matcher on text: a string (equality), a map of conditions \
                            that must all hold, or a list of those.",
            "anyOf": [
                { "type": "string" },
                conditions,
                {
                    "type": "array",
                    "minItems": 1,
                    "items": { "anyOf": [{ "type": "string" }, conditions] },
                },
            ],
        })
    }
}
