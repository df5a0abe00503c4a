//! The JSON Schema of scenario files, generated from the Rust types.
//!
//! The crate commits it as `schema/scenario.json` (editors validate
//! scenarios with it; `toolpass schema scenario` prints it), and a test
//! fails when the committed file drifts from the types.
//!
//! The schema says what the types can say. The loader checks more
//! (placeholders, regexes, feature names, which keys go with which step
//! kind are also in the schema), so a file the schema accepts may still be
//! refused, with a positioned message.

use schemars::generate::SchemaSettings;
use serde_json::Value;

use toolpass_protocol::drop_null;

use crate::scenario::Scenario;

/// The scenario schema (JSON Schema 2020-12), pretty-printed with a final
/// newline: the text of `schema/scenario.json`.
pub fn scenario_schema() -> String {
    let mut text =
        serde_json::to_string_pretty(&scenario_schema_value()).unwrap_or_else(|e| e.to_string());
    text.push('\n');
    text
}

/// The scenario schema as a JSON value.
pub fn scenario_schema_value() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Scenario>();
    schema.insert(
        "$comment".into(),
        "A toolpass scenario file (scenarios/<area>/<name>.yaml). Generated from the Rust \
         types of toolpass-scenario; do not edit: run `BLESS=1 cargo test -p \
         toolpass-scenario` to regenerate."
            .into(),
    );
    let mut schema = schema.to_value();
    drop_null(&mut schema);
    schema
}
