//! How matchers are written in YAML: reading (a string, a map of
//! conditions, or a list of them), writing back, and the JSON Schema.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Condition, Matcher, Pattern, Snapshot, SnapshotName};
use crate::forms::{OneOrMany, Range};
use crate::located::{Located, Pos};

/// The conditions keys, for error messages and the schema.
const KEYS: &[&str] = &[
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
        out.extend(
            self.snapshot
                .map(|name| Condition::Snapshot(Snapshot::from_name(name))),
        );
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

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Condition::Equals(s)
            | Condition::Contains(s)
            | Condition::NotContains(s)
            | Condition::StartsWith(s)
            | Condition::EndsWith(s) => map.serialize_entry(self.key(), s)?,
            Condition::Regex(pattern) => map.serialize_entry(self.key(), pattern.source())?,
            Condition::Lines(range) | Condition::Chars(range) => {
                map.serialize_entry(self.key(), range)?;
            }
            Condition::Snapshot(snapshot) => map.serialize_entry(self.key(), snapshot.name())?,
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
