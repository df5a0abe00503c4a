//! Files: the sandbox before step 1 ([`FileEntry`]), the world's actions on
//! it (`fs` steps, [`FsAction`]) and what a scenario expects of it at a
//! step ([`FileExpectation`]).
//!
//! Paths are relative to the sandbox root, with `/` separators. A file's
//! content is written as
//!
//! - `"text"`: UTF-8 text (placeholders substituted);
//! - `{text: "...", mode: "755"}`: the same with a mode;
//! - `{base64: "AAEC"}`: bytes, standard alphabet with padding (a mode may
//!   follow too);
//! - `{symlink: target}`: a symbolic link (target substituted, not
//!   resolved; no mode).
//!
//! A mode is a quoted string of three or four octal digits (`"644"`,
//! `"0755"`, `"4755"`). A bare number is refused: YAML reads `0o755` as 493,
//! `0755` as 755 or 493 depending on the YAML version, and `755` as decimal.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::forms::OneOrMany;
use crate::located::{Located, Pos};
use crate::matcher::Matcher;

/// A path relative to the sandbox root, as written.
pub type RelPath = Located<String>;

/// A file's permission bits, e.g. `0o755`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mode(pub u32);

/// What a file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// UTF-8 text; a template.
    Text(Located<String>),
    /// Bytes, written as base64.
    Bytes(Vec<u8>),
    /// A symbolic link to this target; a template.
    Symlink(Located<String>),
}

/// A file of the sandbox, or one an `fs` step writes.
#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    /// Its content.
    pub content: Content,
    /// Its mode; the implementation's default (umask) when absent. Never
    /// set on a symlink.
    pub mode: Option<Mode>,
}

/// An `fs` step's action: something the world outside the tool layer does
/// to the sandbox. Written as a one-key map, e.g. `{write: {a.txt: "x"}}`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FsAction {
    /// Create or replace files (parent directories are created). An
    /// existing regular file is rewritten in place and keeps its inode (as
    /// `>` in a shell); `delete` it first to get a new file.
    Write(BTreeMap<RelPath, FileEntry>),
    /// Append text or bytes to files (created when missing). No mode, no
    /// symlink.
    Append(BTreeMap<RelPath, FileEntry>),
    /// Remove files, symlinks or directories (recursively): a path or a
    /// list.
    Delete(
        #[serde(deserialize_with = "one_or_many")]
        #[schemars(with = "OneOrMany<String>")]
        Vec<RelPath>,
    ),
    /// Set modification times (the file is created when missing).
    Touch(BTreeMap<RelPath, Touch>),
    /// Set modes.
    Chmod(BTreeMap<RelPath, Mode>),
    /// Create symbolic links: link path → target (a template, not
    /// resolved).
    Symlink(BTreeMap<RelPath, Located<String>>),
    /// Create directories with their parents: a path or a list.
    Mkdir(
        #[serde(deserialize_with = "one_or_many")]
        #[schemars(with = "OneOrMany<String>")]
        Vec<RelPath>,
    ),
}

pub(crate) fn one_or_many<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<RelPath>, D::Error> {
    OneOrMany::<String>::deserialize(deserializer).map(|paths| paths.0)
}

/// A `touch`: the modification time to set. `{}` is now;
/// `{mtime: 1700000000}` is seconds since the Unix epoch;
/// `{mtime_offset: -60}` is seconds from now (negative: in the past).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Touch {
    /// The time to set; now when absent.
    pub mtime: Option<Mtime>,
}

/// A modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mtime {
    /// Seconds since the Unix epoch.
    At(i64),
    /// Seconds from the moment the step runs.
    FromNow(i64),
}

/// What a scenario expects of one path at an `expect_files` step.
///
/// Written as a string (exact text) or a map of `text`, `base64`, `symlink`
/// (exact content, at most one), `matches` (a matcher on the text instead),
/// `mode`, or `absent: true` alone; or `{any_of: [alternative, ...]}`
/// alone, each alternative any of those forms, passing when one holds
/// (what the safety profile needs: "the edit lands exactly or is
/// refused" is the original bytes or the exactly edited ones).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileExpectation {
    /// The exact content.
    pub content: Option<Content>,
    /// A matcher on the content, read as UTF-8.
    pub matches: Option<Matcher>,
    /// The permission bits.
    pub mode: Option<Mode>,
    /// Whether nothing may exist at the path.
    pub absent: bool,
    /// Alternatives, one of which must hold; when not empty, the other
    /// members are empty. Never nested.
    pub any_of: Vec<FileExpectation>,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:03o}", self.0)
    }
}

impl Mode {
    /// Parses three or four octal digits.
    pub fn parse(text: &str) -> Option<Mode> {
        let ok = (3..=4).contains(&text.len()) && text.bytes().all(|b| (b'0'..=b'7').contains(&b));
        ok.then(|| u32::from_str_radix(text, 8).ok().map(Mode))
            .flatten()
    }
}

const MODE_HINT: &str = "a mode is a quoted string of octal digits such as \"755\"";

/// The error for a mode written as a YAML number.
fn number<E: de::Error>(v: impl fmt::Display) -> E {
    E::custom(format!("the mode {v} is a YAML number: {MODE_HINT}"))
}

impl<'de> Deserialize<'de> for Mode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Mode, D::Error> {
        struct ModeVisitor;

        impl<'de> Visitor<'de> for ModeVisitor {
            type Value = Mode;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(MODE_HINT)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Mode, E> {
                Mode::parse(v).ok_or_else(|| E::custom(format!("bad mode {v:?}: {MODE_HINT}")))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Mode, E> {
                Err(number(v))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Mode, E> {
                Err(number(v))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Mode, E> {
                Err(number(v))
            }
        }

        deserializer.deserialize_any(ModeVisitor)
    }
}

impl Serialize for Mode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl JsonSchema for Mode {
    fn schema_name() -> Cow<'static, str> {
        "Mode".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Permission bits: a quoted string of 3 or 4 octal digits.",
            "type": "string",
            "pattern": "^[0-7]{3,4}$",
        })
    }
}

/// The map form of a file entry or expectation, as written.
#[derive(Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FileFields {
    /// UTF-8 text; placeholders are substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<Located<String>>,
    /// With `text`: the text this many times over (a file of 28 001
    /// characters is `{text: "x", repeat: 28001}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    repeat: Option<u64>,
    /// Bytes, in standard base64 with padding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base64: Option<Located<String>>,
    /// A symbolic link to this target; placeholders are substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    symlink: Option<Located<String>>,
    /// Permission bits: a quoted string of octal digits such as "755".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<Mode>,
}

/// `FileFields` plus what only an expectation may say.
#[derive(Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExpectationFields {
    /// The exact text; placeholders are substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<Located<String>>,
    /// With `text`: the text this many times over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    repeat: Option<u64>,
    /// The exact bytes, in standard base64 with padding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base64: Option<Located<String>>,
    /// A symbolic link to exactly this target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    symlink: Option<Located<String>>,
    /// A matcher on the text, instead of an exact content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    matches: Option<Matcher>,
    /// The permission bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<Mode>,
    /// `true`: nothing exists at the path. Goes alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    absent: bool,
    /// Two or more alternatives (each a text or a map as above), one of
    /// which must hold. Goes alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 2))]
    any_of: Option<Vec<FileExpectation>>,
}

/// The most a `repeat` may make: a scenario is data, and a typo in a count
/// must not fill the runner's memory.
pub(crate) const MAX_REPEATED_BYTES: u64 = 64 << 20;

/// `text` repeated `times` over, within [`MAX_REPEATED_BYTES`].
fn repeated<E: de::Error>(
    text: Option<Located<String>>,
    times: Option<u64>,
) -> Result<Option<Located<String>>, E> {
    let Some(times) = times else { return Ok(text) };
    let Some(text) = text else {
        return Err(E::custom(
            "repeat goes with text: {text: \"x\", repeat: 28001}",
        ));
    };
    let bytes = (text.len() as u64).saturating_mul(times);
    if bytes > MAX_REPEATED_BYTES {
        return Err(E::custom(format!(
            "repeat: {times} times {} bytes is {bytes} bytes, over the {} MiB a scenario may make",
            text.len(),
            MAX_REPEATED_BYTES >> 20
        )));
    }
    let count = usize::try_from(times).map_err(E::custom)?;
    Ok(Some(Located::new(text.repeat(count), text.pos)))
}

fn content<E: de::Error>(
    text: Option<Located<String>>,
    base64: Option<Located<String>>,
    symlink: Option<Located<String>>,
) -> Result<Option<Content>, E> {
    match (text, base64, symlink) {
        (None, None, None) => Ok(None),
        (Some(text), None, None) => Ok(Some(Content::Text(text))),
        (None, Some(encoded), None) => BASE64
            .decode(encoded.as_bytes())
            .map(|bytes| Some(Content::Bytes(bytes)))
            .map_err(|e| E::custom(format!("bad base64: {e}"))),
        (None, None, Some(target)) => Ok(Some(Content::Symlink(target))),
        _ => Err(E::custom("give only one of text, base64 and symlink")),
    }
}

fn map_access<'de, A: MapAccess<'de>, T: Deserialize<'de>>(map: A) -> Result<T, A::Error> {
    T::deserialize(de::value::MapAccessDeserializer::new(map))
}

impl<'de> Deserialize<'de> for FileEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FileEntry, D::Error> {
        let located = Located::<EntryForm>::deserialize(deserializer)?;
        Ok(match located.value {
            EntryForm::Text(text) => FileEntry {
                content: Content::Text(Located::new(text, located.pos)),
                mode: None,
            },
            EntryForm::Entry(entry) => entry,
        })
    }
}

enum EntryForm {
    Text(String),
    Entry(FileEntry),
}

impl<'de> Deserialize<'de> for EntryForm {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EntryForm, D::Error> {
        struct EntryVisitor;

        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = EntryForm;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("file content: text, {text, mode}, {base64, mode} or {symlink}")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<EntryForm, E> {
                Ok(EntryForm::Text(v.to_owned()))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<EntryForm, A::Error> {
                let fields: FileFields = map_access(map)?;
                let text = repeated::<A::Error>(fields.text, fields.repeat)?;
                let content = content::<A::Error>(text, fields.base64, fields.symlink)?
                    .ok_or_else(|| de::Error::custom("give one of text, base64 and symlink"))?;
                if matches!(content, Content::Symlink(_)) && fields.mode.is_some() {
                    return Err(de::Error::custom("a symlink has no mode of its own"));
                }
                Ok(EntryForm::Entry(FileEntry {
                    content,
                    mode: fields.mode,
                }))
            }
        }

        deserializer.deserialize_any(EntryVisitor)
    }
}

/// `text`, `base64` and `symlink`, as written.
type ContentFields = (
    Option<Located<String>>,
    Option<Located<String>>,
    Option<Located<String>>,
);

fn fields_of(content: &Content) -> ContentFields {
    match content {
        Content::Text(text) => (Some(text.clone()), None, None),
        Content::Bytes(bytes) => (None, Some(Located::unknown(BASE64.encode(bytes))), None),
        Content::Symlink(target) => (None, None, Some(target.clone())),
    }
}

impl Serialize for FileEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (&self.content, self.mode) {
            (Content::Text(text), None) => text.serialize(serializer),
            (content, mode) => {
                let (text, base64, symlink) = fields_of(content);
                FileFields {
                    text,
                    repeat: None,
                    base64,
                    symlink,
                    mode,
                }
                .serialize(serializer)
            }
        }
    }
}

impl JsonSchema for FileEntry {
    fn schema_name() -> Cow<'static, str> {
        "FileEntry".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let fields = generator.subschema_for::<FileFields>();
        json_schema!({
            "description": "A file: its text, or {text|base64|symlink, mode}.",
            "anyOf": [{ "type": "string" }, fields],
        })
    }
}

impl<'de> Deserialize<'de> for FileExpectation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FileExpectation, D::Error> {
        let located = Located::<ExpectationForm>::deserialize(deserializer)?;
        Ok(match located.value {
            ExpectationForm::Text(text) => FileExpectation {
                content: Some(Content::Text(Located::new(text, located.pos))),
                ..FileExpectation::default()
            },
            ExpectationForm::Fields(expectation) => expectation,
        })
    }
}

enum ExpectationForm {
    Text(String),
    Fields(FileExpectation),
}

impl<'de> Deserialize<'de> for ExpectationForm {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ExpectationForm, D::Error> {
        struct ExpectationVisitor;

        impl<'de> Visitor<'de> for ExpectationVisitor {
            type Value = ExpectationForm;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a file expectation: text, or a map of text, base64, symlink, \
                     matches, mode, absent, any_of",
                )
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<ExpectationForm, E> {
                Ok(ExpectationForm::Text(v.to_owned()))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ExpectationForm, A::Error> {
                let fields: ExpectationFields = map_access(map)?;
                let text = repeated::<A::Error>(fields.text, fields.repeat)?;
                let content = content::<A::Error>(text, fields.base64, fields.symlink)?;
                let expectation = FileExpectation {
                    content,
                    matches: fields.matches,
                    mode: fields.mode,
                    absent: fields.absent,
                    any_of: Vec::new(),
                };
                let expectation = match fields.any_of {
                    Some(any_of) => any_of_alone::<A::Error>(expectation, any_of)?,
                    None => expectation,
                };
                check_expectation::<A::Error>(&expectation)?;
                Ok(ExpectationForm::Fields(expectation))
            }
        }

        deserializer.deserialize_any(ExpectationVisitor)
    }
}

/// `{any_of: [...]}` with nothing beside it, two alternatives or more, none
/// an `any_of` itself (a nested one says nothing a flat list does not).
fn any_of_alone<E: de::Error>(
    beside: FileExpectation,
    any_of: Vec<FileExpectation>,
) -> Result<FileExpectation, E> {
    if beside != FileExpectation::default() {
        return Err(E::custom(
            "`any_of` goes alone: put the other keys inside each alternative",
        ));
    }
    if any_of.len() < 2 {
        return Err(E::custom(
            "`any_of` needs two alternatives or more: with one, write it alone",
        ));
    }
    if any_of
        .iter()
        .any(|alternative| !alternative.any_of.is_empty())
    {
        return Err(E::custom(
            "an `any_of` alternative cannot be an `any_of`: list every alternative in one",
        ));
    }
    Ok(FileExpectation {
        any_of,
        ..FileExpectation::default()
    })
}

fn check_expectation<E: de::Error>(e: &FileExpectation) -> Result<(), E> {
    if !e.any_of.is_empty() {
        return Ok(());
    }
    let says_something = e.content.is_some() || e.matches.is_some() || e.mode.is_some();
    if e.absent && says_something {
        return Err(E::custom("`absent: true` goes alone"));
    }
    if !e.absent && !says_something {
        return Err(E::custom(
            "expect something: text, base64, symlink, matches, mode, absent: true or any_of",
        ));
    }
    if e.content.is_some() && e.matches.is_some() {
        return Err(E::custom("give an exact content or `matches`, not both"));
    }
    if matches!(e.content, Some(Content::Symlink(_))) && e.mode.is_some() {
        return Err(E::custom("a symlink has no mode of its own"));
    }
    Ok(())
}

impl Serialize for FileExpectation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FileExpectation {
                content: Some(Content::Text(text)),
                matches: None,
                mode: None,
                absent: false,
                any_of,
            } if any_of.is_empty() => text.serialize(serializer),
            _ => {
                let (text, base64, symlink) =
                    self.content.as_ref().map_or((None, None, None), fields_of);
                ExpectationFields {
                    text,
                    repeat: None,
                    base64,
                    symlink,
                    matches: self.matches.clone(),
                    mode: self.mode,
                    absent: self.absent,
                    any_of: (!self.any_of.is_empty()).then(|| self.any_of.clone()),
                }
                .serialize(serializer)
            }
        }
    }
}

impl JsonSchema for FileExpectation {
    fn schema_name() -> Cow<'static, str> {
        "FileExpectation".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let fields = generator.subschema_for::<ExpectationFields>();
        json_schema!({
            "description": "What a path holds: its exact text, or a map of \
                            text|base64|symlink|matches, mode; or {absent: true}; or \
                            {any_of: [alternatives]}.",
            "anyOf": [{ "type": "string" }, fields],
        })
    }
}

/// `touch` as written.
#[derive(Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Touch")]
struct TouchFields {
    /// Seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mtime: Option<i64>,
    /// Seconds from the moment the step runs; negative is in the past.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mtime_offset: Option<i64>,
}

impl<'de> Deserialize<'de> for Touch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Touch, D::Error> {
        let fields = Option::<TouchFields>::deserialize(deserializer)?.unwrap_or_default();
        let mtime = match (fields.mtime, fields.mtime_offset) {
            (None, None) => None,
            (Some(at), None) => Some(Mtime::At(at)),
            (None, Some(offset)) => Some(Mtime::FromNow(offset)),
            (Some(_), Some(_)) => {
                return Err(de::Error::custom("give mtime or mtime_offset, not both"));
            }
        };
        Ok(Touch { mtime })
    }
}

impl Serialize for Touch {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = match self.mtime {
            None => TouchFields::default(),
            Some(Mtime::At(at)) => TouchFields {
                mtime: Some(at),
                mtime_offset: None,
            },
            Some(Mtime::FromNow(offset)) => TouchFields {
                mtime: None,
                mtime_offset: Some(offset),
            },
        };
        fields.serialize(serializer)
    }
}

impl JsonSchema for Touch {
    fn schema_name() -> Cow<'static, str> {
        TouchFields::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        TouchFields::json_schema(generator)
    }
}

impl Content {
    /// Where the content was written, when it is text or a link.
    pub fn pos(&self) -> Pos {
        match self {
            Content::Text(text) | Content::Symlink(text) => text.pos,
            Content::Bytes(_) => Pos::UNKNOWN,
        }
    }
}
