//! What a call expects of the Outcome it is answered with. Its own file
//! because steps, the validator and the safety profile all read it, and the
//! scenario file itself does not.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
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
    /// call that awaits none. The only key when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<i64>,
    /// Two or more alternatives, one of which the Outcome must meet; the
    /// only key when present (`{any_of: [{status: success}, {status:
    /// error}]}`: the safety profile's "the edit lands or is refused").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 2))]
    pub any_of: Vec<Expect>,
}
