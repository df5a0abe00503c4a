//! JSON Schemas of every toolpass/1 message body, generated from the Rust
//! types.
//!
//! The crate commits them under `schemas/` for adapter authors, and a test
//! regenerates them and fails when the committed files drift from the types.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use crate::method::{self, Method, NotificationMethod};
use crate::outcome::Outcome;
use crate::version::PROTOCOL_VERSION;

/// One generated schema and the file it is committed as.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFile {
    /// The file name under `schemas/`: the method name with `/` turned into
    /// `.`, then `.params.json` or `.result.json`; and `outcome.json`.
    pub file_name: String,
    /// The schema (JSON Schema 2020-12).
    pub schema: Value,
}

/// Every schema: params and result of each request method, params of each
/// notification, and the Outcome on its own.
pub fn schemas() -> Vec<SchemaFile> {
    let mut files = Vec::new();
    request::<method::Initialize>(&mut files);
    request::<method::SessionOpen>(&mut files);
    request::<method::ToolsList>(&mut files);
    request::<method::ToolsCall>(&mut files);
    request::<method::Batch>(&mut files);
    request::<method::Confirm>(&mut files);
    request::<method::Fault>(&mut files);
    request::<method::SessionClose>(&mut files);
    notification::<method::Notice>(&mut files);
    notification::<method::LogMessage>(&mut files);
    notification::<method::Progress>(&mut files);
    notification::<method::Cancelled>(&mut files);
    files.push(generate::<Outcome>(
        "outcome.json".into(),
        "a tool call's Outcome",
    ));
    files
}

fn request<M: Method>(files: &mut Vec<SchemaFile>) {
    let stem = M::NAME.replace('/', ".");
    files.push(generate::<M::Params>(
        format!("{stem}.params.json"),
        &format!("the params of `{}`", M::NAME),
    ));
    files.push(generate::<M::Result>(
        format!("{stem}.result.json"),
        &format!("the result of `{}`", M::NAME),
    ));
}

fn notification<N: NotificationMethod>(files: &mut Vec<SchemaFile>) {
    let stem = N::NAME.replace('/', ".");
    files.push(generate::<N::Params>(
        format!("{stem}.params.json"),
        &format!("the params of the `{}` notification", N::NAME),
    ));
}

fn generate<T: JsonSchema>(file_name: String, what: &str) -> SchemaFile {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert(
        "$comment".into(),
        format!(
            "{PROTOCOL_VERSION}: {what}. Generated from the Rust types of toolpass-protocol; \
             do not edit: run `BLESS=1 cargo test -p toolpass-protocol` to regenerate."
        )
        .into(),
    );
    let mut schema = schema.to_value();
    drop_null(&mut schema);
    SchemaFile { file_name, schema }
}

/// Removes the `null` that schemars allows for every `Option`.
///
/// toolpass omits an absent member and never writes `null`, so the schemas
/// say "absent or a string" rather than "a string or null" (the Rust types
/// still accept `null` when reading, as serde does). The scenario schema
/// applies it too: a scenario leaves a key out rather than writing `~`.
pub fn drop_null(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = types.as_slice() {
                    let only = only.clone();
                    object.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(any_of)) = object.get_mut("anyOf") {
                any_of.retain(|branch| *branch != json!({"type": "null"}));
                if any_of.len() == 1
                    && let Some(Value::Object(only)) = any_of.pop()
                {
                    object.remove("anyOf");
                    object.extend(only);
                }
            }
            object.values_mut().for_each(drop_null);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null),
        _ => {}
    }
}
