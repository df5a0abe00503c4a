//! The status file beside a background shell's output file
//! (`writeStatusFile` in `services/backgroundShellRegistry.ts`): JSON the
//! model reads to learn whether the shell still runs, written to a
//! temporary file and renamed so a reader never sees half of it, mode 0600.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::json;

use super::Shell;

/// `shell-<id>.status` beside `shell-<id>.output` (`statusFilePathFor`).
#[must_use]
pub fn path_for(output_file: &Path) -> PathBuf {
    let name = output_file.to_string_lossy();
    match name.strip_suffix(".output") {
        Some(stem) => PathBuf::from(format!("{stem}.status")),
        None => PathBuf::from(format!("{name}.status")),
    }
}

/// Writes the status file of `shell`. A failure is ignored, as in Qwen: the
/// file is a convenience and must not fail the shell.
pub(super) fn write(shell: &Shell) {
    let mut payload = json!({
        "id": shell.id,
        "status": shell.status.name(),
        "command": shell.command,
        "cwd": shell.cwd.to_string_lossy(),
        "startTime": iso(shell.start),
        "updatedAt": iso(SystemTime::now()),
    });
    if let Some(pid) = shell.pid {
        payload["pid"] = json!(pid);
    }
    if let Some(end) = shell.end {
        payload["endTime"] = json!(iso(end));
    }
    if let Some(code) = shell.exit_code {
        payload["exitCode"] = json!(code);
    }
    if let Some(error) = &shell.error {
        payload["error"] = json!(error);
    }
    let text = serde_json::to_string_pretty(&payload).unwrap_or_default();
    let target = path_for(&shell.output_file);
    let Some(dir) = target.parent() else { return };
    // A fresh temporary of an unpredictable name, renamed over the target:
    // a file or symlink planted beside the output file is never written
    // through (the rename replaces a link, never follows it).
    let _ = tempfile::Builder::new()
        .prefix(".status-")
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(dir)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.persist(&target).map_err(|e| e.error)?;
            Ok(())
        });
}

/// JavaScript's `toISOString`: UTC with milliseconds.
fn iso(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_file_sits_beside_the_output_file() {
        assert_eq!(
            path_for(Path::new("/t/shell-bg_1.output")),
            Path::new("/t/shell-bg_1.status")
        );
        assert_eq!(path_for(Path::new("/t/log")), Path::new("/t/log.status"));
    }

    #[test]
    fn timestamps_have_javascripts_shape() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_123);
        assert_eq!(iso(t), "2023-11-14T22:13:20.123Z");
    }
}
