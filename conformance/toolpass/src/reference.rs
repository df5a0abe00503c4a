//! Finding the workspace's binaries the runner starts as processes and
//! never links: the reference server (`toolpass-server`), the default
//! implementation, and the MCP test server (`toolpass-mcp-fixture`), which
//! scenarios start through a session's `mcpServers`.
//!
//! Where each is looked for, in order: its environment variable
//! ([`REFERENCE_SERVER_ENV`], [`MCP_FIXTURE_ENV`]); inside the checkout the
//! runner was built from ([`crate::checkout`]), `cargo build` of that
//! workspace; beside the runner's own executable (where `cargo install`
//! puts them); on `PATH`. Cargo is never run outside the checkout.

use std::ffi::OsString;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

use crate::checkout::{Checkout, checkout, why_not_inside};
use crate::error::{StartError, StartErrorKind};
use crate::implementation::Implementation;

/// Set to a built `toolpass-server` binary to use it as is, without cargo
/// (for instance in a packaged runner, or to pin a build).
pub const REFERENCE_SERVER_ENV: &str = "TOOLPASS_REFERENCE_SERVER";

/// Set to a built `toolpass-mcp-fixture` binary to use it as is.
pub const MCP_FIXTURE_ENV: &str = "TOOLPASS_MCP_FIXTURE";

/// One of the workspace's binaries: its package (and binary) name, the
/// variable that names a built one, what to call it in messages, its
/// package's directory in the checkout (for `cargo install --path`) and
/// what else the user can do when it is nowhere.
struct Binary {
    package: &'static str,
    env: &'static str,
    what: &'static str,
    dir: &'static str,
    otherwise: &'static str,
}

const REFERENCE_SERVER: Binary = Binary {
    package: "toolpass-server",
    env: REFERENCE_SERVER_ENV,
    what: "the reference server",
    dir: "reference/toolpass-server",
    otherwise: ", or pass --impl",
};

/// The MCP test server's package and binary name, which a scenario's
/// `mcpServers` entry names as its `command`.
pub const MCP_FIXTURE: &str = "toolpass-mcp-fixture";

const MCP_FIXTURE_BINARY: Binary = Binary {
    package: MCP_FIXTURE,
    env: MCP_FIXTURE_ENV,
    what: "the MCP test server",
    dir: "conformance/toolpass-mcp-fixture",
    otherwise: "",
};

/// Which cargo profile builds the reference server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `--release`: what `toolpass run` and benchmarks use.
    Release,
    /// The dev profile: quick to build, and already built by
    /// `cargo test --workspace`, so tests use it.
    Dev,
}

/// The reference server as an [`Implementation`], looked for where the
/// module says. Inside the checkout, cargo builds it (a no-op when the
/// binary is fresh) and reports the executable, so every later spawn
/// starts the binary directly instead of paying for `cargo run`; cargo's
/// own diagnostics go to the runner's stderr. When it is nowhere, the error
/// names every place looked at.
///
/// Blocking: call it before starting connections, or from
/// `spawn_blocking`.
pub fn reference_server(profile: Profile) -> Result<Implementation, StartError> {
    executable(locate(&REFERENCE_SERVER, profile)?)
}

/// The MCP test server's executable, looked for as the reference server
/// is. Blocking, as [`reference_server`].
pub fn mcp_fixture(profile: Profile) -> Result<PathBuf, StartError> {
    locate(&MCP_FIXTURE_BINARY, profile)
}

/// Where `binary` is, looked for where the module says.
fn locate(binary: &Binary, profile: Profile) -> Result<PathBuf, StartError> {
    let Binary {
        package,
        env,
        what,
        dir,
        otherwise,
    } = binary;
    if let Some(path) = std::env::var_os(env) {
        return Ok(PathBuf::from(path));
    }
    if let Some(checkout) = checkout() {
        return built_by_cargo(binary, &checkout, profile);
    }
    let beside = beside_the_runner(package);
    if let Some(path) = beside.as_ref().filter(|p| is_executable(p)) {
        return Ok(path.clone());
    }
    if let Some(path) = on_path(package) {
        return Ok(path);
    }
    let beside = beside.map_or_else(
        || "beside the runner (its own path is unknown)".to_owned(),
        |p| format!("beside the runner ({}: none)", p.display()),
    );
    Err(StartError::new(
        StartErrorKind::Reference,
        format!(
            "find {what}: looked at {env} (not set), in this runner's checkout ({}), {beside} \
             and on PATH (no {package}); install it beside the runner (`cargo install --path \
             {dir}`, or --git), set {env}{otherwise}",
            why_not_inside()
        ),
    ))
}

/// An executable file of this name in a directory of `PATH`, if any.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `program` in the runner's own directory.
fn beside_the_runner(program: &str) -> Option<PathBuf> {
    let runner = std::env::current_exe().ok()?;
    Some(runner.parent()?.join(program))
}

/// `cargo build -p <package>` of the checkout, and the executable cargo
/// reports.
fn built_by_cargo(
    binary: &Binary,
    checkout: &Checkout,
    profile: Profile,
) -> Result<PathBuf, StartError> {
    let Binary {
        package, env, what, ..
    } = binary;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--package", package, "--bin", package])
        .args([
            "--message-format",
            "json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(checkout.manifest())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if profile == Profile::Release {
        command.arg("--release");
    }
    let building = || {
        format!(
            "build {what} with `{} build -p {package}` (in the checkout {}; {env} names a \
             built one instead)",
            Path::new(&cargo).display(),
            checkout.root().display()
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
    output
        .stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|line| built_executable(&line, package))
        .ok_or_else(|| {
            StartError::new(
                StartErrorKind::Reference,
                format!("{}: cargo reported no executable", building()),
            )
        })
}

/// The executable in one line of cargo's JSON messages, if the line is the
/// artifact of the binary `package`.
fn built_executable(line: &str, package: &str) -> Option<PathBuf> {
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
    let is_it = artifact.reason == "compiler-artifact"
        && artifact.target.name == package
        && artifact.target.kind.iter().any(|kind| kind == "bin");
    if is_it { artifact.executable } else { None }
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
            built_executable(line, "toolpass-server"),
            Some(PathBuf::from("/w/target/debug/toolpass-server"))
        );
        assert_eq!(built_executable(line, "toolpass-mcp-fixture"), None);
    }

    #[test]
    fn other_messages_name_nothing() {
        for line in [
            r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"toolpass_protocol"},"executable":null}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "not json",
        ] {
            assert_eq!(built_executable(line, "toolpass-server"), None, "{line}");
        }
    }
}
