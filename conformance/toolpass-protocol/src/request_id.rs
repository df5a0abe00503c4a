//! The id that ties a JSON-RPC response to its request. Its own file because
//! the envelope and the notifications that name a request (progress,
//! cancellation) both carry one, and neither should need the other for it.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// The id that ties a response to its request: an integer or a string.
///
/// `1` and `"1"` are different ids, as JSON-RPC says.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id, as the toolpass runner sends.
    Number(i64),
    /// A string id, as some MCP clients send.
    String(String),
}

impl From<i64> for RequestId {
    fn from(id: i64) -> RequestId {
        RequestId::Number(id)
    }
}

impl From<String> for RequestId {
    fn from(id: String) -> RequestId {
        RequestId::String(id)
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> RequestId {
        RequestId::String(id.to_owned())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            // Quoted, so that `7` and `"7"` read differently in a report.
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

/// A string or an integer, as JSON-RPC (and MCP's `ProgressToken`) allow.
impl schemars::JsonSchema for RequestId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RequestId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A string or an integer.",
            "type": ["string", "integer"],
        })
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RequestId, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer id")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<RequestId, E> {
                i64::try_from(n)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("id is too large"))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(s.to_owned()))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}
