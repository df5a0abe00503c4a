//! Protocol versions: `toolpass/<major>`. A change that breaks an adapter
//! bumps the major; both sides refuse a different major with a message that
//! says which sides speak what.

use std::fmt;

use serde_json::json;

use crate::error::{Error, ErrorKind};
use crate::response_error::ResponseError;

/// The version this crate speaks, as sent in `initialize`.
pub const PROTOCOL_VERSION: &str = "toolpass/1";

/// The major version in [`PROTOCOL_VERSION`], as advertised in
/// `capabilities.toolpass.version`.
pub const PROTOCOL_MAJOR: u32 = 1;

const PREFIX: &str = "toolpass/";

/// The MCP versions whose `initialize`, `tools/list` and `tools/call`
/// shapes a toolpass/1 implementation's answers satisfy, newest first.
/// 2025-03-26 and older are left out: 2025-03-26 requires JSON-RPC
/// batches, which toolpass framing does not read.
pub const MCP_VERSIONS: &[&str] = &[MCP_LATEST, "2025-06-18"];

/// The newest of [`MCP_VERSIONS`]: the answer to a version this side does
/// not support.
pub const MCP_LATEST: &str = "2025-11-25";

/// What a server agreed to speak in `initialize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negotiated {
    /// [`PROTOCOL_VERSION`].
    Toolpass,
    /// This MCP version, one of [`MCP_VERSIONS`].
    Mcp(&'static str),
}

impl Negotiated {
    /// The `protocolVersion` to answer.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Negotiated::Toolpass => PROTOCOL_VERSION,
            Negotiated::Mcp(version) => version,
        }
    }
}

/// A server's side of version negotiation, for a client that asked for
/// `requested`; `toolpass` says whether the server speaks toolpass or poses
/// as a plain MCP server.
///
/// MCP's lifecycle: the client's version when the server supports it, else
/// the newest the server supports (the client disconnects if it cannot use
/// that). So a plain MCP server answers a toolpass/1 client with its newest
/// MCP version, as any MCP server would. Another toolpass major is refused
/// instead (-32602, `data: {supported, requested}` as in MCP's own example):
/// such a client would read toolpass/1's answers as its own major's shapes.
pub fn negotiate(requested: &str, toolpass: bool) -> Result<Negotiated, ResponseError> {
    if let Some(version) = MCP_VERSIONS.iter().find(|v| **v == requested) {
        return Ok(Negotiated::Mcp(version));
    }
    match ProtocolVersion::parse(requested) {
        Some(version) if version == ProtocolVersion::CURRENT && toolpass => {
            Ok(Negotiated::Toolpass)
        }
        Some(version) if version != ProtocolVersion::CURRENT => {
            let mut supported: Vec<&str> = Vec::new();
            if toolpass {
                supported.push(PROTOCOL_VERSION);
            }
            supported.extend(MCP_VERSIONS);
            Err(ResponseError::new(
                ResponseError::INVALID_PARAMS,
                format!(
                    "unsupported protocol version {requested:?}: this server supports {}",
                    supported.join(", ")
                ),
            )
            .with_data(json!({"supported": supported, "requested": requested})))
        }
        _ => Ok(Negotiated::Mcp(MCP_LATEST)),
    }
}

/// A parsed `toolpass/<major>` version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProtocolVersion {
    major: u32,
}

impl ProtocolVersion {
    /// The version this crate speaks.
    pub const CURRENT: ProtocolVersion = ProtocolVersion {
        major: PROTOCOL_MAJOR,
    };

    /// The version with this major.
    pub fn new(major: u32) -> ProtocolVersion {
        ProtocolVersion { major }
    }

    /// Parses `toolpass/<major>`: ASCII digits, no sign, no leading zero.
    /// Anything else (an MCP date such as `2025-06-18`) is `None`.
    pub fn parse(text: &str) -> Option<ProtocolVersion> {
        let digits = text.strip_prefix(PREFIX)?;
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        if !canonical {
            return None;
        }
        digits.parse().ok().map(ProtocolVersion::new)
    }

    /// The major version.
    pub fn major(self) -> u32 {
        self.major
    }

    /// Checks a version string the peer sent against [`Self::CURRENT`].
    ///
    /// The error says what the peer speaks and what this side speaks, for
    /// both another toolpass major and a string that is not toolpass at all.
    pub fn check(text: &str) -> Result<ProtocolVersion, Error> {
        match ProtocolVersion::parse(text) {
            Some(version) => version.check_major(),
            None => Err(Error::new(
                ErrorKind::UnsupportedVersion,
                format!(
                    "the peer speaks {text:?}, not toolpass: this side speaks {PROTOCOL_VERSION}"
                ),
            )),
        }
    }

    /// Checks that this version has [`PROTOCOL_MAJOR`].
    pub fn check_major(self) -> Result<ProtocolVersion, Error> {
        if self.major == PROTOCOL_MAJOR {
            return Ok(self);
        }
        let advice = if self.major > PROTOCOL_MAJOR {
            format!("upgrade this side, or use a build of the peer that speaks {PROTOCOL_VERSION}")
        } else {
            format!("upgrade the peer, or use a build of this side that speaks {self}")
        };
        Err(Error::new(
            ErrorKind::UnsupportedVersion,
            format!(
                "the peer speaks {self}, but this side speaks {PROTOCOL_VERSION}: \
                 major versions differ, so the wire shapes may too ({advice})"
            ),
        ))
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.major)
    }
}
