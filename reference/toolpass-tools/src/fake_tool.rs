//! A tool for tests: a name and the registry flags, nothing to run.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::kind::Kind;
use crate::tool::{BuildError, Invocation, Tool};
use crate::workspace::Workspace;

/// A tool with the flags a test wants.
pub(crate) struct Fake {
    name: String,
    should_defer: bool,
    always_load: bool,
    server: Option<String>,
    pub(crate) aliases: Vec<String>,
    schema: Value,
    description: String,
}

pub(crate) fn fake(name: &str) -> Fake {
    Fake {
        name: name.to_owned(),
        should_defer: false,
        always_load: false,
        server: None,
        aliases: Vec::new(),
        schema: json!({"type": "object"}),
        description: "a fake".to_owned(),
    }
}

impl Fake {
    pub(crate) fn deferred(mut self) -> Self {
        self.should_defer = true;
        self
    }
    pub(crate) fn always_loaded(mut self) -> Self {
        self.always_load = true;
        self
    }
    pub(crate) fn of_server(mut self, server: &str) -> Self {
        self.server = Some(server.to_owned());
        self.should_defer = true;
        self
    }
    pub(crate) fn described(mut self, description: &str) -> Self {
        self.description = description.to_owned();
        self
    }
    pub(crate) fn arc(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}

impl Tool for Fake {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameter_schema(&self) -> &Value {
        &self.schema
    }
    fn kind(&self) -> Kind {
        Kind::Other
    }
    fn should_defer(&self) -> bool {
        self.should_defer
    }
    fn always_load(&self) -> bool {
        self.always_load
    }
    fn mcp_server(&self) -> Option<&str> {
        self.server.as_deref()
    }
    fn permission_aliases(&self) -> Vec<String> {
        self.aliases.clone()
    }
    fn build(&self, _: &Value, _: &Workspace) -> Result<Box<dyn Invocation>, BuildError> {
        Err(BuildError::invalid("a fake is never called"))
    }
}
