//! The output budgets: the writes around the three gates whose arithmetic
//! is [`toolpass_core::budget`], in the order Qwen's `CoreToolScheduler`
//! runs them.
//!
//! 1. [`persist`]: a single result far over the session's threshold is
//!    saved whole as `<call id>.txt` and replaced by a stub.
//! 2. [`hold`]: Qwen's `truncateLlmContent`. An output over its limits is
//!    written in full to the session's spill directory and the model gets
//!    Qwen's truncated stub with the file's path, unless the stub would not
//!    be shorter. The scheduler holds every result to the tool's limits
//!    ([`scheduler_limits`]); a tool that words its result around the cut
//!    (`run_shell_command` appends notes after it, as Qwen does) applies
//!    [`hold`] itself and says so in its result.
//! 3. The batch budget (the scheduler's `hold_batch`): the texts of a
//!    completed batch held to the session's budget, saved with
//!    [`persist::save`].
//!
//! Every file is mode 0600 in the session's 0700 spill directory: outputs
//! can hold secrets.

pub mod persist;

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use toolpass_core::budget::{SessionLimits, tool_limits};
use toolpass_core::truncate::{Limits, truncate};

use crate::tool::Tool;
use crate::workspace::Workspace;

/// The scheduler's per-tool limits: the tool's own `maxOutputChars` with no
/// line cap, or the session's threshold and line cap; the tool's
/// `truncateKeep`.
#[must_use]
pub fn scheduler_limits(workspace: &Workspace, tool: &dyn Tool) -> Limits {
    tool_limits(
        session_limits(workspace),
        tool.max_output_chars(workspace),
        Some(tool.truncate_keep()),
    )
}

/// The session's threshold and line cap.
fn session_limits(workspace: &Workspace) -> SessionLimits {
    SessionLimits {
        threshold: workspace.config().truncate_threshold,
        lines: workspace.config().truncate_lines,
    }
}

/// Qwen's `truncateLlmContent`: cuts `content` of the tool `tool_name` to
/// `limits` and returns the spill file, if one was written.
pub fn hold(
    workspace: &Workspace,
    tool_name: &str,
    limits: &Limits,
    content: &mut String,
) -> Option<PathBuf> {
    hold_with(workspace, tool_name, limits, content, |file, text| {
        file.write_all(text.as_bytes())
    })
}

/// [`hold`] for a tool whose text was cut before it got here (the shell,
/// which keeps a long output's head and tail in memory): `content` decides
/// the cut and the stub as in [`hold`], and `write` fills the spill file,
/// given `content`, with the whole text it was cut from. A spill file whose
/// write failed is removed.
pub fn hold_with(
    workspace: &Workspace,
    tool_name: &str,
    limits: &Limits,
    content: &mut String,
    write: impl FnOnce(&mut File, &str) -> io::Result<()>,
) -> Option<PathBuf> {
    let plan = truncate(content, limits)?;
    let unsaved = plan.unsaved_message();
    let dir = match workspace.spill_dir() {
        Ok(dir) => dir,
        Err(e) => {
            tracing::warn!("could not make the spill directory: {e}");
            *content = unsaved;
            return None;
        }
    };
    let path = spill_path(dir, tool_name);
    // `None`: the stub would not be shorter than the output, so it stays.
    let stub = plan.wrapped_message(&path.display().to_string())?;
    match write_private(&path, |file| write(file, content.as_str())) {
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
/// which sets the mode on write but does not refuse an existing file) and
/// fills it with `write`; removes it when that fails, so no half-written
/// file claims to be the whole output.
fn write_private(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    let written = write(&mut file);
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}
