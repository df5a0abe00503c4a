//! A tool's static half: Qwen's declaration (`{name, description,
//! parametersJsonSchema}`) parsed once, and the schema check built from it.

use std::sync::OnceLock;

use serde_json::Value;

use crate::kind::Kind;

/// The static half of a declarative tool.
#[derive(Debug)]
pub struct Declaration {
    /// Tool name.
    pub name: &'static str,
    /// Description shown to the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub schema: Value,
    /// Kind of action.
    pub kind: Kind,
    /// Deferred until revealed.
    pub should_defer: bool,
    /// Listed even when deferred.
    pub always_load: bool,
    /// The compiled schema, built on first use.
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl Declaration {
    /// A declaration that is neither deferred nor always loaded.
    #[must_use]
    pub fn new(
        name: &'static str,
        kind: Kind,
        description: impl Into<String>,
        schema: Value,
    ) -> Self {
        Declaration {
            name,
            description: description.into(),
            schema,
            kind,
            should_defer: false,
            always_load: false,
            validator: OnceLock::new(),
        }
    }

    /// A declaration from a JSON file in Qwen Code's declaration shape
    /// (`{name, description, parametersJsonSchema}`), so a tool shows the
    /// model exactly what Qwen's does.
    ///
    /// # Errors
    /// When the JSON is not of that shape.
    pub fn from_json(name: &'static str, kind: Kind, json: &str) -> Result<Self, String> {
        let mut value: Value =
            serde_json::from_str(json).map_err(|e| format!("declaration of {name}: {e}"))?;
        if value.get("name").and_then(Value::as_str) != Some(name) {
            return Err(format!("declaration of {name} names another tool"));
        }
        let description = value
            .get("description")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("declaration of {name} has no description"))?
            .to_owned();
        let schema = value
            .get_mut("parametersJsonSchema")
            .map(Value::take)
            .ok_or_else(|| format!("declaration of {name} has no parametersJsonSchema"))?;
        Ok(Declaration::new(name, kind, description, schema))
    }

    /// A declaration embedded in this crate (`include_str!` of a file under
    /// `tools/declarations/`, Qwen Code's own, Apache-2.0, copied verbatim
    /// so transcripts run unchanged against both implementations).
    ///
    /// # Panics
    /// When the embedded JSON is malformed: a build-time constant, so each
    /// tool's `declaration_parses` unit test catches it before release.
    #[must_use]
    pub fn qwen(name: &'static str, kind: Kind, json: &str) -> Self {
        match Self::from_json(name, kind, json) {
            Ok(declaration) => declaration,
            #[allow(clippy::panic)] // See the doc: a constant, checked by a test.
            Err(e) => panic!("embedded {e}"),
        }
    }

    /// Checks `args` against the schema; the message names the argument,
    /// like Ajv's `errorsText` with `dataVar: "params"`.
    ///
    /// # Errors
    /// A description of every violation, `; `-separated.
    pub fn validate(&self, args: &Value) -> Result<(), String> {
        if !args.is_object() {
            return Err("Value of params must be an object".to_owned());
        }
        let validator = self
            .validator
            .get_or_init(|| jsonschema::validator_for(&self.schema).map_err(|e| e.to_string()));
        let validator = validator
            .as_ref()
            .map_err(|e| format!("the tool's schema is invalid: {e}"))?;
        violations(validator, args)
    }
}

/// Every way `args` breaks `validator`'s schema, `; `-separated, each
/// naming the argument as Ajv's `errorsText` with `dataVar: "params"` does.
///
/// # Errors
/// The violations, when there are any.
pub fn violations(validator: &jsonschema::Validator, args: &Value) -> Result<(), String> {
    let errors: Vec<String> = validator
        .iter_errors(args)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                format!("params {e}")
            } else {
                format!("params{} {e}", at.replace('/', "."))
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}
