//! Finding the reference server: the default implementation is the
//! `toolpass-server` binary of this workspace, built by cargo and run as a
//! process like any other implementation. The runner never links it.

use std::ffi::OsString;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

use crate::error::{StartError, StartErrorKind};
use crate::implementation::Implementation;

/// Set to a built `toolpass-server` binary to use it as is, without cargo
/// (for instance in a packaged runner, or to pin a build).
pub const REFERENCE_SERVER_ENV: &str = "TOOLPASS_REFERENCE_SERVER";

/// The reference server's package and binary name.
const PACKAGE: &str = "toolpass-server";

/// Which cargo profile builds the reference server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `--release`: what `toolpass run` and benchmarks use.
    Release,
    /// The dev profile: quick to build, and already built by
    /// `cargo test --workspace`, so tests use it.
    Dev,
}

/// The reference server as an [`Implementation`].
///
/// Uses [`REFERENCE_SERVER_ENV`] when set. Otherwise runs
/// `cargo build -p toolpass-server` on this workspace (a no-op when the
/// binary is fresh) and returns the executable cargo reports, so every
/// later spawn starts the binary directly instead of paying for `cargo run`.
/// Cargo's own diagnostics go to the runner's stderr.
///
/// Blocking: call it before starting connections, or from
/// `spawn_blocking`.
pub fn reference_server(profile: Profile) -> Result<Implementation, StartError> {
    if let Some(path) = std::env::var_os(REFERENCE_SERVER_ENV) {
        return executable(PathBuf::from(path));
    }
    let manifest = workspace_manifest();
    if !manifest.is_file() {
        return Err(StartError::new(
            StartErrorKind::Reference,
            format!(
                "find the reference server: this runner was built from a workspace at {}, which is gone; \
                 pass --impl or set {REFERENCE_SERVER_ENV}",
                manifest.display()
            ),
        ));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--package", PACKAGE, "--bin", PACKAGE])
        .args([
            "--message-format",
            "json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(&manifest)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if profile == Profile::Release {
        command.arg("--release");
    }
    let building = || {
        format!(
            "build the reference server with `{} build -p {PACKAGE}`",
            Path::new(&cargo).display()
        )
    };
    let output = command
        .output()
        .map_err(|e| StartError::new(StartErrorKind::Reference, building()).with_source(e))?;
    if !output.status.success() {
        return Err(StartError::new(
            StartErrorKind::Reference,
            format!("{}: cargo failed ({})", building(), output.status),
        ));
    }
    let path = output
        .stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|line| built_executable(&line))
        .ok_or_else(|| {
            StartError::new(
                StartErrorKind::Reference,
                format!("{}: cargo reported no executable", building()),
            )
        })?;
    executable(path)
}

/// The workspace this runner was built from.
fn workspace_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml")
}

/// The executable in one line of cargo's JSON messages, if the line is the
/// reference server's artifact.
fn built_executable(line: &str) -> Option<PathBuf> {
    #[derive(Deserialize)]
    struct Artifact {
        reason: String,
        target: Target,
        executable: Option<PathBuf>,
    }
    #[derive(Deserialize)]
    struct Target {
        name: String,
        kind: Vec<String>,
    }
    let artifact: Artifact = serde_json::from_str(line).ok()?;
    let is_server = artifact.reason == "compiler-artifact"
        && artifact.target.name == PACKAGE
        && artifact.target.kind.iter().any(|kind| kind == "bin");
    if is_server { artifact.executable } else { None }
}

fn executable(path: PathBuf) -> Result<Implementation, StartError> {
    match path.into_os_string().into_string() {
        Ok(path) => Ok(Implementation::new(path)),
        Err(path) => Err(StartError::new(
            StartErrorKind::Reference,
            format!(
                "use the reference server at {}: the path is not UTF-8",
                Path::new(&path).display()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::built_executable;

    #[test]
    fn the_server_artifact_names_the_executable() {
        let line = r#"{"reason":"compiler-artifact","package_id":"x","target":{"kind":["bin"],"crate_types":["bin"],"name":"toolpass-server","src_path":"/w/main.rs"},"executable":"/w/target/debug/toolpass-server","fresh":true}"#;
        assert_eq!(
            built_executable(line),
            Some(PathBuf::from("/w/target/debug/toolpass-server"))
        );
    }

    #[test]
    fn other_messages_name_nothing() {
        for line in [
            r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"toolpass_protocol"},"executable":null}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "not json",
        ] {
            assert_eq!(built_executable(line), None, "{line}");
        }
    }
}
