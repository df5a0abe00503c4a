//! Protocol versions: `toolpass/<major>`. A change that breaks an adapter
//! bumps the major; both sides refuse a different major with a message that
//! says which sides speak what.

use std::fmt;

use crate::error::{Error, ErrorKind};

/// The version this crate speaks, as sent in `initialize`.
pub const PROTOCOL_VERSION: &str = "toolpass/1";

/// The major version in [`PROTOCOL_VERSION`], as advertised in
/// `capabilities.toolpass.version`.
pub const PROTOCOL_MAJOR: u32 = 1;

const PREFIX: &str = "toolpass/";

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
