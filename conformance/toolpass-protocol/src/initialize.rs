//! `initialize`: who speaks, which version, and which features.
//!
//! The shapes are MCP's `InitializeRequest` params and `InitializeResult`,
//! with toolpass's own capability under `capabilities.toolpass`. A plain MCP
//! server answers without it, and [`InitializeResult::dialect`] says so.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::feature::Feature;
use crate::version::{PROTOCOL_MAJOR, PROTOCOL_VERSION, ProtocolVersion};

/// The `initialize` request's params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The version the client speaks: `toolpass/1` from the runner.
    pub protocol_version: String,
    /// The client.
    pub client_info: Implementation,
    /// The client's capabilities; the runner sends `{}`. Kept as an object
    /// because MCP clients send members toolpass does not define.
    #[serde(default)]
    pub capabilities: Map<String, Value>,
}

/// The `initialize` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server speaks. A toolpass implementation answers
    /// `toolpass/1`; one built on an MCP SDK may answer the SDK's MCP
    /// version, since `capabilities.toolpass.version` is authoritative.
    pub protocol_version: String,
    /// The server.
    pub server_info: Implementation,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// MCP's usage hints for the model; toolpass does not use them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// A client or server: MCP's `Implementation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// A machine-friendly name, e.g. `toolpass-reference`.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Where to learn more: MCP's `websiteUrl`. `homepage` is accepted when
    /// reading, as an earlier toolpass draft called it.
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "homepage")]
    pub website_url: Option<String>,
    /// What this implementation is, in a sentence: MCP's `description`.
    /// An adapter says here which configuration of its peer it drives (for
    /// one, which grep backend), and the runner prints it in the run's header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The server's capabilities: MCP's `ServerCapabilities` members that
/// toolpass reads. Others (resources, prompts, ...) are accepted and dropped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerCapabilities {
    /// Present when the server offers tools: every implementation does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Present when the server sends `notifications/message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// Present when the server speaks toolpass beyond plain MCP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolpass: Option<ToolpassCapability>,
}

/// MCP's `capabilities.tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `capabilities.toolpass`: the toolpass major version and the features
/// offered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolpassCapability {
    /// The toolpass major version: 1.
    pub version: u32,
    /// What the implementation offers beyond `tools/list` and `tools/call`.
    #[serde(default)]
    pub features: Vec<Feature>,
}

impl ToolpassCapability {
    /// This crate's version with `features`.
    pub fn new(features: Vec<Feature>) -> ToolpassCapability {
        ToolpassCapability {
            version: PROTOCOL_MAJOR,
            features,
        }
    }

    /// Whether `feature` is offered.
    pub fn supports(&self, feature: &Feature) -> bool {
        self.features.contains(feature)
    }
}

/// What the runner may ask of an implementation, from its `initialize`
/// answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Dialect<'a> {
    /// A toolpass implementation with these capabilities.
    Toolpass(&'a ToolpassCapability),
    /// A plain MCP server: `tools/list` and `tools/call` only. Carries the
    /// MCP version it answered.
    PlainMcp(&'a str),
}

impl InitializeParams {
    /// The runner's params: [`PROTOCOL_VERSION`], `client`, no capabilities.
    pub fn new(client: Implementation) -> InitializeParams {
        InitializeParams {
            protocol_version: PROTOCOL_VERSION.to_owned(),
            client_info: client,
            capabilities: Map::new(),
        }
    }
}

impl InitializeResult {
    /// A toolpass implementation's answer: [`PROTOCOL_VERSION`] and
    /// `capabilities {tools: {}, toolpass: {version: 1, features}}`.
    pub fn new(server: Implementation, features: Vec<Feature>) -> InitializeResult {
        InitializeResult {
            protocol_version: PROTOCOL_VERSION.to_owned(),
            server_info: server,
            capabilities: ServerCapabilities {
                tools: Some(ToolsCapability::default()),
                logging: None,
                toolpass: Some(ToolpassCapability::new(features)),
            },
            instructions: None,
        }
    }

    /// Decides how to talk to the server, refusing another toolpass major.
    ///
    /// `capabilities.toolpass.version` is authoritative when present, because
    /// an implementation built on an MCP SDK cannot always choose its
    /// `protocolVersion`; a `protocolVersion` of `toolpass/<n>` must agree
    /// with it. Without the capability, `toolpass/<n>` for another major is
    /// refused and anything else is a plain MCP server.
    pub fn dialect(&self) -> Result<Dialect<'_>, Error> {
        if let Some(announced) = ProtocolVersion::parse(&self.protocol_version) {
            announced.check_major()?;
        }
        match &self.capabilities.toolpass {
            Some(toolpass) => {
                ProtocolVersion::new(toolpass.version).check_major()?;
                Ok(Dialect::Toolpass(toolpass))
            }
            // Includes `toolpass/1` without the capability: a toolpass server
            // that offers nothing beyond plain MCP.
            None => Ok(Dialect::PlainMcp(&self.protocol_version)),
        }
    }
}

impl Implementation {
    /// A name and a version, no website or description.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Implementation {
        Implementation {
            name: name.into(),
            version: version.into(),
            website_url: None,
            description: None,
        }
    }
}
