//! [`Snapshot`]: a matcher condition whose expected text is a file next to
//! the scenario, written in bless mode.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Mismatch;
use crate::error::{Error, ErrorKind};
use crate::located::Located;
use crate::placeholder::ROOT;

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

    /// The condition as read from `snapshot: <name>`.
    pub(super) fn from_name(name: Located<SnapshotName>) -> Snapshot {
        Snapshot {
            name,
            ..Snapshot::new(SnapshotName::Step)
        }
    }

    /// The same condition, knowing the sandbox root to write as `{root}`.
    pub(super) fn with_root(&self, root: &str) -> Snapshot {
        Snapshot {
            root: Some(root.to_owned()),
            ..self.clone()
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

    pub(super) fn check(&self, actual: &str) -> Result<(), Mismatch> {
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

    pub(super) fn write(&self, actual: &str) -> Result<(), Error> {
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
