//! Source positions: [`Pos`] and [`Located`], a value with the line and
//! column it was written at.
//!
//! Positions come from serde-saphyr's `Spanned` when a scenario is read from
//! YAML; anything else (JSON, values built in code) has [`Pos::UNKNOWN`].
//! Equality ignores positions: two scenarios are equal when they say the
//! same thing, wherever it was written.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A line and column in a scenario file, both 1-based; 0 when unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, in characters.
    pub column: u32,
}

impl Pos {
    /// No known position (the value did not come from a YAML file).
    pub const UNKNOWN: Pos = Pos { line: 0, column: 0 };

    /// Whether the position is known.
    pub fn is_known(self) -> bool {
        self.line != 0
    }

    pub(crate) fn from_location(location: serde_saphyr::Location) -> Pos {
        let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Pos {
            line: clamp(location.line()),
            column: clamp(location.column()),
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A value and where it was written.
#[derive(Debug, Clone, Default)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where its YAML node starts.
    pub pos: Pos,
}

impl<T> Located<T> {
    /// A value at `pos`.
    pub fn new(value: T, pos: Pos) -> Located<T> {
        Located { value, pos }
    }

    /// A value built in code, with no position.
    pub fn unknown(value: T) -> Located<T> {
        Located::new(value, Pos::UNKNOWN)
    }
}

impl<T> Deref for Located<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: PartialEq> PartialEq for Located<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Located<T> {}

impl<T: PartialOrd> PartialOrd for Located<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<T: Ord> Ord for Located<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.value.cmp(&other.value)
    }
}

impl<T: Hash> Hash for Located<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Located<T>, D::Error> {
        let spanned = serde_saphyr::Spanned::<T>::deserialize(deserializer)?;
        Ok(Located::new(
            spanned.value,
            Pos::from_location(spanned.referenced),
        ))
    }
}

impl<T: Serialize> Serialize for Located<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

/// The schema of `T`: a position is not part of the format.
impl<T: JsonSchema> JsonSchema for Located<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}
