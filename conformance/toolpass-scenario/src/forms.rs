//! Small YAML forms shared by the model: a value or a list of them
//! ([`OneOrMany`]), a count or a range ([`Range`]).
//!
//! Each has a hand-written `Deserialize` instead of `serde(untagged)`, so
//! that a wrong value gets an error that names what was expected, at its
//! own line.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::located::Located;

/// One value or a list of them, read into a list. A scalar that is an
/// integer or a boolean is read as its text, so `contains: 12` means the
/// text `12`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OneOrMany<T>(pub(crate) Vec<Located<T>>);

enum Form<T> {
    One(T),
    Many(Vec<Located<T>>),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<OneOrMany<T>, D::Error> {
        let form = Located::<Form<T>>::deserialize(deserializer)?;
        Ok(OneOrMany(match form.value {
            Form::One(value) => vec![Located::new(value, form.pos)],
            Form::Many(values) => values,
        }))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Form<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Form<T>, D::Error> {
        deserializer.deserialize_any(FormVisitor(PhantomData))
    }
}

struct FormVisitor<T>(PhantomData<T>);

impl<T> FormVisitor<T> {
    fn text<'de, E: de::Error>(text: String) -> Result<Form<T>, E>
    where
        T: Deserialize<'de>,
    {
        T::deserialize(text.into_deserializer()).map(Form::One)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for FormVisitor<T> {
    type Value = Form<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or a list of values")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Form<T>, E> {
        Self::text(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Form<T>, E> {
        Self::text(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Form<T>, E> {
        Self::text(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Form<T>, E> {
        Self::text(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Form<T>, E> {
        Self::text(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Form<T>, E> {
        Err(E::custom(format!(
            "the number {v} is ambiguous as text: quote it"
        )))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Form<T>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Form::One)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Form<T>, A::Error> {
        let mut values = Vec::new();
        while let Some(value) = seq.next_element()? {
            values.push(value);
        }
        Ok(Form::Many(values))
    }
}

impl<T: Serialize> Serialize for OneOrMany<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => one.serialize(serializer),
            many => many.serialize(serializer),
        }
    }
}

impl<T: JsonSchema> JsonSchema for OneOrMany<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("OneOrMany_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let one = generator.subschema_for::<T>();
        json_schema!({
            "anyOf": [one, { "type": "array", "items": one }],
        })
    }
}

/// A count: exactly `n`, or between `min` and `max` (both inclusive,
/// either may be absent). Written `3` or `{min: 1, max: 10}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    /// The least count allowed.
    pub min: Option<u64>,
    /// The greatest count allowed.
    pub max: Option<u64>,
}

impl Range {
    /// Exactly `n`.
    pub fn exactly(n: u64) -> Range {
        Range {
            min: Some(n),
            max: Some(n),
        }
    }

    /// Whether `n` is in the range.
    pub fn contains(&self, n: u64) -> bool {
        self.min.is_none_or(|min| n >= min) && self.max.is_none_or(|max| n <= max)
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (Some(min), Some(max)) if min == max => write!(f, "exactly {min}"),
            (Some(min), Some(max)) => write!(f, "between {min} and {max}"),
            (Some(min), None) => write!(f, "at least {min}"),
            (None, Some(max)) => write!(f, "at most {max}"),
            (None, None) => f.write_str("any number"),
        }
    }
}

/// `{min, max}` as written.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RangeBounds")]
struct Bounds {
    /// The least count allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<u64>,
    /// The greatest count allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<u64>,
}

impl<'de> Deserialize<'de> for Range {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Range, D::Error> {
        struct RangeVisitor;

        impl<'de> Visitor<'de> for RangeVisitor {
            type Value = Range;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a count or {min, max}")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Range, E> {
                Ok(Range::exactly(v))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Range, E> {
                u64::try_from(v)
                    .map(Range::exactly)
                    .map_err(|_| E::custom(format!("a count cannot be negative: {v}")))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Range, A::Error> {
                let bounds = Bounds::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Range {
                    min: bounds.min,
                    max: bounds.max,
                })
            }
        }

        deserializer.deserialize_any(RangeVisitor)
    }
}

impl Serialize for Range {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.min, self.max) {
            (Some(min), Some(max)) if min == max => serializer.serialize_u64(min),
            (min, max) => Bounds { min, max }.serialize(serializer),
        }
    }
}

impl JsonSchema for Range {
    fn schema_name() -> Cow<'static, str> {
        "Range".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let bounds = generator.subschema_for::<Bounds>();
        json_schema!({
            "description": "A count: exactly this number, or {min, max} (inclusive).",
            "anyOf": [{ "type": "integer", "minimum": 0 }, bounds],
        })
    }
}
