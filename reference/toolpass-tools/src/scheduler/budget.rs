//! The output budget: Qwen's `truncateLlmContent` with the scheduler's
//! per-tool limits (the tool's own `maxOutputChars` with no line cap, or the
//! session's threshold and line cap). An output over budget is written in
//! full to the session's spill directory (mode 0600: outputs can hold
//! secrets) and the model gets Qwen's truncated stub with the file's path,
//! unless the stub would not be shorter.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use toolpass_core::truncate::{Keep, Limits, truncate};

use crate::session::Session;
use crate::tool::Tool;

/// Qwen's `truncateLlmContent` with the scheduler's per-tool limits: cuts
/// `content` to its budget and returns the spill file, if one was written.
pub(super) fn hold_to_budget(
    session: &Session,
    tool: &dyn Tool,
    content: &mut String,
) -> Option<PathBuf> {
    let limits = match tool.max_output_chars() {
        Some(max) => Limits {
            threshold: max,
            lines: None,
            keep: Keep::Both,
            preview_chars: None,
        },
        None => Limits {
            threshold: session.config().truncate_threshold,
            lines: Some(session.config().truncate_lines),
            keep: Keep::Both,
            preview_chars: None,
        },
    };
    let plan = truncate(content, &limits)?;
    let unsaved = plan.unsaved_message();
    let dir = match session.spill_dir() {
        Ok(dir) => dir,
        Err(e) => {
            tracing::warn!("could not make the spill directory: {e}");
            *content = unsaved;
            return None;
        }
    };
    let path = spill_path(dir, tool.name());
    // `None`: the stub would not be shorter than the output, so it stays.
    let stub = plan.wrapped_message(&path.display().to_string())?;
    match write_private(&path, content.as_bytes()) {
        Ok(()) => {
            *content = stub;
            Some(path)
        }
        Err(e) => {
            tracing::warn!("could not spill {}: {e}", path.display());
            *content = unsaved;
            None
        }
    }
}

/// `<tool>_<hex>.output` in the spill directory, like Qwen's
/// `truncateToolOutput`; the tool name is reduced to safe characters so it
/// can never name another directory.
fn spill_path(dir: &Path, tool: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let safe: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let id = NEXT.fetch_add(1, Ordering::Relaxed) ^ u64::from(std::process::id()) << 32;
    dir.join(format!("{safe}_{id:012x}.output"))
}

/// Creates `path` readable and writable by the owner only (beyond Qwen,
/// which sets the mode on write but does not refuse an existing file).
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}
