//! Gate 1, the persist gate, with its write: Qwen's
//! `maybePersistLargeToolResult`, its error gate and
//! `persistAndTruncateToolResult`. The decisions and the stub are
//! [`toolpass_core::budget`]'s; this module saves the text and counts it
//! against the session's disk budget.

use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use sha2::{Digest, Sha256};
use toolpass_core::budget::{self, Gate, PersistTarget, StubNote, persist_target, persisted_stub};
use toolpass_core::truncate::{Keep, Limits};

use super::{hold, session_limits};
use crate::workspace::Workspace;

/// A text the gate replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persisted {
    /// What the model reads instead: the stub, or the fallback's cut.
    pub text: String,
    /// Where the whole text went, if it was written.
    pub file: Option<PathBuf>,
}

/// The gate on a result's text (a success's): `None` when it passes.
/// `tool` is the tool's canonical name, `budget_applied` whether the tool
/// held its output to budget itself.
#[must_use]
pub fn gate_result(
    workspace: &Workspace,
    call_id: &str,
    tool: &str,
    text: &str,
    budget_applied: bool,
) -> Option<Persisted> {
    let threshold = workspace.config().truncate_threshold;
    match budget::persist_gate(tool, text, budget_applied, threshold) {
        Gate::Pass(_) => None,
        Gate::Persist => Some(persist(workspace, call_id, tool, text)),
    }
}

/// The gate on a failure's message: `None` when it passes. `bounded`: the
/// tool held its output to budget and the message is that output.
#[must_use]
pub fn gate_failure(
    workspace: &Workspace,
    call_id: &str,
    tool: &str,
    message: &str,
    bounded: bool,
) -> Option<Persisted> {
    let threshold = workspace.config().truncate_threshold;
    match budget::error_gate(tool, message, bounded, threshold) {
        Gate::Pass(_) => None,
        Gate::Persist => Some(persist(workspace, call_id, tool, message)),
    }
}

/// Qwen's `persistAndTruncateToolResult`: saves `text` whole as
/// `<call id>.txt` and words the stub; when the write fails, the per-tool
/// cut at the session's limits keeping both ends, which names its own
/// spill file if it could write one.
#[must_use]
pub fn persist(workspace: &Workspace, call_id: &str, tool: &str, text: &str) -> Persisted {
    let digest = sha256_hex(text.as_bytes());
    let bytes = text.len() as u64;
    let stub = |target| persisted_stub(text, bytes, &digest, target);
    match save(workspace, call_id, text) {
        Ok(path) => Persisted {
            text: stub(PersistTarget::File(&path.display().to_string())),
            file: Some(path),
        },
        Err(Unsaved::Refused(note)) => Persisted {
            text: stub(PersistTarget::Note(note)),
            file: None,
        },
        Err(Unsaved::Failed(error)) => {
            tracing::warn!("could not persist the result of {tool}: {error}");
            let limits = Limits {
                keep: Keep::Both,
                ..budget::tool_limits(session_limits(workspace), None, None)
            };
            let mut cut = text.to_owned();
            let file = hold(workspace, tool, &limits, &mut cut);
            if file.is_some() {
                // Qwen keeps the bytes counted when the fallback wrote.
                *workspace.persisted_bytes() += bytes;
            }
            Persisted { text: cut, file }
        }
    }
}

/// Why a text was not saved.
#[derive(Debug)]
pub enum Unsaved {
    /// A check refused it; the stub says which.
    Refused(StubNote),
    /// The write failed.
    Failed(io::Error),
}

/// Saves `text` as `<call id>.txt` in the spill directory after the checks
/// `persistAndTruncateToolResult` makes (its size, the session's budget,
/// the call id), counting it against the session when it is written. The
/// write is atomic (a temporary file renamed into place, as Qwen's
/// `atomicWriteFile`), so a reader never sees half a result.
pub fn save(workspace: &Workspace, call_id: &str, text: &str) -> Result<PathBuf, Unsaved> {
    let bytes = text.len() as u64;
    let mut persisted = workspace.persisted_bytes();
    let name = persist_target(call_id, bytes, *persisted).map_err(Unsaved::Refused)?;
    let dir = workspace.spill_dir().map_err(Unsaved::Failed)?;
    let path = dir.join(name);
    let written = (|| {
        let mut file = tempfile::Builder::new()
            .prefix(".persisting-")
            .permissions(std::fs::Permissions::from_mode(0o600))
            .tempfile_in(dir)?;
        file.write_all(text.as_bytes())?;
        file.persist(&path).map_err(|e| e.error)?;
        Ok(())
    })();
    written.map_err(Unsaved::Failed)?;
    *persisted += bytes;
    Ok(path)
}

/// The lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}
