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

use toolpass_core::budget::{SessionLimits, tool_limits};
use toolpass_core::truncate::{Limits, truncate};

use crate::spill_budget::{Counted, SPILL_BUDGET_BYTES};
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
    let (path, mut file) = match create_spill(dir, tool_name) {
        Ok(made) => made,
        Err(e) => {
            tracing::warn!("could not make a spill file: {e}");
            *content = unsaved;
            return None;
        }
    };
    // `None`: the stub would not be shorter than the output, so it stays.
    let Some(stub) = plan.wrapped_message(&path.display().to_string()) else {
        let _ = std::fs::remove_file(&path);
        return None;
    };
    let written = write(&mut file, content.as_str()).and_then(|()| file.metadata());
    match written {
        Ok(meta) => match workspace.spills().count(&path, meta.len()) {
            Counted::Kept => {
                *content = stub;
                Some(path)
            }
            Counted::OverBudget => {
                *content = format!(
                    "{unsaved}\n[The whole output ({} bytes) was not saved: it is larger than \
                     the session's spill budget of {SPILL_BUDGET_BYTES} bytes.]",
                    meta.len()
                );
                None
            }
        },
        Err(e) => {
            // No half-written file may claim to be the whole output.
            let _ = std::fs::remove_file(&path);
            tracing::warn!("could not spill {}: {e}", path.display());
            *content = unsaved;
            None
        }
    }
}

/// How many names [`create_spill`] tries before it gives up: with 64
/// random bits a collision is all but impossible unless the name was
/// planted, and a planted name is passed over.
const SPILL_NAME_TRIES: usize = 16;

/// A new spill file `<tool>_<16 random hex digits>.output` in `dir`, as
/// Qwen's `truncateToolOutput` names them but unpredictable, created with
/// `O_EXCL` (so a file or symlink planted under the name is never opened,
/// let alone followed) and mode 0600 (beyond Qwen, which sets the mode on
/// write but does not refuse an existing file); a taken name is retried
/// with another, so a planted name cannot stop spilling. The tool name is
/// reduced to safe characters so it can never name another directory.
fn create_spill(dir: &Path, tool: &str) -> io::Result<(PathBuf, File)> {
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
    create_named(dir, || format!("{safe}_{}.output", random_hex()))
}

/// The first of up to [`SPILL_NAME_TRIES`] names from `name` that `dir`
/// does not hold yet, created new, 0600.
fn create_named(dir: &Path, mut name: impl FnMut() -> String) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..SPILL_NAME_TRIES {
        let path = dir.join(name());
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)))
}

/// 16 hex digits from the kernel's random pool.
fn random_hex() -> String {
    let mut bytes = [0u8; 8];
    // getrandom blocks only before the kernel's pool is seeded at boot.
    let _ = rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty());
    format!("{:016x}", u64::from_ne_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, symlink};

    #[test]
    fn spill_names_are_random_private_and_safe() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _) = create_spill(dir.path(), "run shell/../x").unwrap();
        let (b, _) = create_spill(dir.path(), "run shell/../x").unwrap();
        assert_ne!(a, b);
        for path in [&a, &b] {
            assert_eq!(path.parent(), Some(dir.path()));
            let name = path.file_name().unwrap().to_str().unwrap();
            let hex = name
                .strip_prefix("run_shell____x_")
                .and_then(|n| n.strip_suffix(".output"))
                .unwrap();
            assert!(
                hex.len() == 16 && hex.bytes().all(|c| c.is_ascii_hexdigit()),
                "{name}"
            );
            assert_eq!(std::fs::metadata(path).unwrap().mode() & 0o777, 0o600);
        }
    }

    #[test]
    fn a_planted_name_is_passed_over_and_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "kept").unwrap();
        symlink(&target, dir.path().join("planted-link")).unwrap();
        std::fs::write(dir.path().join("planted-file"), "kept").unwrap();
        let mut names = ["planted-link", "planted-file", "fresh"].into_iter();
        let (path, mut file) =
            create_named(dir.path(), || names.next().unwrap().to_owned()).unwrap();
        assert_eq!(path, dir.path().join("fresh"));
        file.write_all(b"spilled").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("planted-file")).unwrap(),
            "kept"
        );
    }

    #[test]
    fn only_taken_names_are_retried() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("taken"), "").unwrap();
        let taken = create_named(dir.path(), || "taken".to_owned()).unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AlreadyExists);
        let mut tries = 0;
        let missing = create_named(&dir.path().join("missing"), || {
            tries += 1;
            "x".to_owned()
        })
        .unwrap_err();
        assert_eq!((missing.kind(), tries), (io::ErrorKind::NotFound, 1));
    }
}
