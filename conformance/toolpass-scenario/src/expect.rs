//! What a call expects of the Outcome it is answered with. Its own file
//! because steps, the validator and the safety profile all read it, and the
//! scenario file itself does not.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toolpass_protocol::Status;

use crate::json::Json;
use crate::located::Located;
use crate::matcher::Matcher;

/// What a call (or one call of a batch, or a confirmation) expects of its
/// Outcome. Every member is optional; strings are templates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `_meta.toolpass.status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// `_meta.toolpass.error.code`: a canonical error code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Located<String>>,
    /// `_meta.toolpass.llmContent`: the text the model sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<Matcher>,
    /// `_meta.toolpass.display`: a JSON subset of it
    /// (e.g. `{type: diff, stat: {addedLines: 1}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<Json>,
    /// `_meta.toolpass.confirmation`: a JSON subset of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Json>,
    /// `_meta.toolpass.classifierInput`, exactly: every member and no
    /// other (`{}` for a tool that forwards nothing, where a subset would
    /// hold of anything). Implies the `classifier_input` feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classifier_input: Option<Json>,
    /// `_meta.toolpass.resultFilePaths`: one matcher per path, in order,
    /// and no other path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_file_paths: Option<Vec<Matcher>>,
    /// Whether `_meta.toolpass.persistedOutputPath` is present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persisted_output: Option<bool>,
    /// The request is answered with a JSON-RPC error of this code instead
    /// of an Outcome: a protocol fault, such as -32602 for a `confirm` of a
    /// call that awaits none; `any` for an error of any code. The only key
    /// when present; in `any_of`, one alternative among Outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<RpcError>,
    /// Two or more alternatives, one of which the Outcome must meet; the
    /// only key when present (`{any_of: [{status: success}, {status:
    /// error}]}`: the safety profile's "the edit lands or is refused").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 2))]
    pub any_of: Vec<Expect>,
}

/// The JSON-RPC error an `rpc_error` expects: one code, or `any` (the
/// safety profile's "refused, however the design says so").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcError {
    /// Exactly this code.
    Code(i64),
    /// Any error response.
    Any,
}

impl RpcError {
    /// Whether an error response of `code` meets it.
    pub fn matches(self, code: i64) -> bool {
        match self {
            RpcError::Code(expected) => expected == code,
            RpcError::Any => true,
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::Code(code) => write!(f, "{code}"),
            RpcError::Any => f.write_str("any"),
        }
    }
}

const RPC_ERROR_HINT: &str = "a JSON-RPC error code such as -32602, or `any`";

impl<'de> Deserialize<'de> for RpcError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RpcError, D::Error> {
        struct RpcErrorVisitor;

        impl<'de> Visitor<'de> for RpcErrorVisitor {
            type Value = RpcError;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(RPC_ERROR_HINT)
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RpcError, E> {
                Ok(RpcError::Code(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RpcError, E> {
                i64::try_from(v).map(RpcError::Code).map_err(|_| {
                    E::custom(format!("the code {v} is out of range: {RPC_ERROR_HINT}"))
                })
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<RpcError, E> {
                match v {
                    "any" => Ok(RpcError::Any),
                    _ => Err(E::custom(format!("bad rpc_error {v:?}: {RPC_ERROR_HINT}"))),
                }
            }
        }

        deserializer.deserialize_any(RpcErrorVisitor)
    }
}

impl Serialize for RpcError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RpcError::Code(code) => serializer.serialize_i64(*code),
            RpcError::Any => serializer.serialize_str("any"),
        }
    }
}

impl JsonSchema for RpcError {
    fn schema_name() -> Cow<'static, str> {
        "RpcError".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A JSON-RPC error code, or `any` for an error of any code.",
            "oneOf": [{"type": "integer"}, {"const": "any"}],
        })
    }
}
