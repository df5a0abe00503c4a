//! [`Json`]: a JSON value written in YAML (tool arguments, subsets of a
//! declaration or a display), which remembers where each of its strings was
//! written so that a bad placeholder inside is reported at its own line.
//!
//! YAML scalars become JSON as serde-saphyr reads them: `12` is a number,
//! `true` a boolean, `~` null; quote them to get strings. Keys are kept in
//! the order written.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::error::Error;
use crate::located::{Located, Pos};
use crate::placeholder::Vars;

/// A JSON value and the positions of its strings.
#[derive(Debug, Clone, Default)]
pub struct Json {
    value: Value,
    /// Every string leaf, as a JSON pointer into `value` and its position,
    /// in the order written.
    strings: Vec<(String, Pos)>,
}

impl Json {
    /// A value built in code, with no positions.
    pub fn new(value: Value) -> Json {
        let mut strings = Vec::new();
        collect_strings(&value, &mut String::new(), &mut strings);
        Json { value, strings }
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The value, for a caller that needs it owned.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// The value with placeholders substituted in every string.
    pub fn substitute(&self, vars: &Vars) -> Result<Value, Error> {
        vars.substitute_json(&self.value)
    }

    /// Every string in the value, with where it was written, in the order
    /// written.
    pub fn strings(&self) -> impl Iterator<Item = Located<&str>> + '_ {
        self.strings.iter().filter_map(|(pointer, pos)| {
            let text = self.value.pointer(pointer)?.as_str()?;
            Some(Located::new(text, *pos))
        })
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.value == other.value
    }
}

fn collect_strings(value: &Value, pointer: &mut String, out: &mut Vec<(String, Pos)>) {
    let len = pointer.len();
    match value {
        Value::String(_) => out.push((pointer.clone(), Pos::UNKNOWN)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                collect_strings(item, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Object(members) => {
            for (key, member) in members {
                push_key(pointer, key);
                collect_strings(member, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Appends `/key` to a JSON pointer, escaped as RFC 6901 says.
fn push_key(pointer: &mut String, key: &str) {
    pointer.push('/');
    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
}

/// A JSON value as read, with a position on every node.
enum Node {
    Scalar(Value),
    String(String),
    Array(Vec<Located<Node>>),
    Object(Vec<(String, Located<Node>)>),
}

impl Node {
    fn into_json(self, pos: Pos, pointer: &mut String, strings: &mut Vec<(String, Pos)>) -> Value {
        let len = pointer.len();
        match self {
            Node::Scalar(value) => value,
            Node::String(text) => {
                strings.push((pointer.clone(), pos));
                Value::String(text)
            }
            Node::Array(items) => Value::Array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| {
                        pointer.push('/');
                        pointer.push_str(&i.to_string());
                        let value = item.value.into_json(item.pos, pointer, strings);
                        pointer.truncate(len);
                        value
                    })
                    .collect(),
            ),
            Node::Object(members) => {
                let mut object = Map::new();
                for (key, member) in members {
                    push_key(pointer, &key);
                    let value = member.value.into_json(member.pos, pointer, strings);
                    pointer.truncate(len);
                    object.insert(key, value);
                }
                Value::Object(object)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Scalar(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Scalar(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Scalar(Value::Number(v.into())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Number::from_f64(v)
            .map(|n| Node::Scalar(Value::Number(n)))
            .ok_or_else(|| E::custom(format!("{v} is not a JSON number")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::String(v))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry()? {
            members.push((key, value));
        }
        Ok(Node::Object(members))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        let node = Located::<Node>::deserialize(deserializer)?;
        let mut strings = Vec::new();
        let value = node
            .value
            .into_json(node.pos, &mut String::new(), &mut strings);
        Ok(Json { value, strings })
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl JsonSchema for Json {
    fn schema_name() -> Cow<'static, str> {
        "Json".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "description": "Any JSON value, written in YAML." })
    }
}

/// A tool call's arguments: a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct Args(Json);

impl Default for Args {
    fn default() -> Args {
        Args::new(Map::new())
    }
}

impl Args {
    /// Arguments built in code.
    pub fn new(arguments: Map<String, Value>) -> Args {
        Args(Json::new(Value::Object(arguments)))
    }

    /// The arguments as written, placeholders and all.
    pub fn as_json(&self) -> &Json {
        &self.0
    }

    /// The arguments object as written, placeholders and all.
    pub fn value(&self) -> &Value {
        self.0.value()
    }

    /// The arguments to send: placeholders substituted in every string.
    pub fn substitute(&self, vars: &Vars) -> Result<Map<String, Value>, Error> {
        match self.0.substitute(vars)? {
            Value::Object(object) => Ok(object),
            // Reading and `new` only ever make objects.
            _ => Ok(Map::new()),
        }
    }
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Args, D::Error> {
        let json = Json::deserialize(deserializer)?;
        match json.value {
            Value::Object(_) => Ok(Args(json)),
            Value::Null => Ok(Args::default()),
            _ => Err(de::Error::custom(
                "args must be a mapping of argument names to values",
            )),
        }
    }
}

impl Serialize for Args {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl JsonSchema for Args {
    fn schema_name() -> Cow<'static, str> {
        "Args".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The tool's arguments, as the model would write them. \
                            Placeholders are substituted in every string.",
            "type": "object",
        })
    }
}
