//! How scenarios reach the MCP test server: a scenario names it by its
//! binary name in a session's `mcpServers`
//! (`{command: toolpass-mcp-fixture, args: [--dir, notes]}`, the directory
//! relative to the entry's `cwd`, which defaults to the session root), and
//! the runner, when a scenario it is about to play does so, puts the
//! directory holding the fixture first on the implementation's `PATH`.
//! Every implementation starts its MCP servers as Qwen Code does, by
//! command name through `PATH`, so no placeholder and no per-peer
//! configuration is needed; the fixture is found as the reference server
//! is ([`crate::reference`]).

use std::ffi::OsString;
use std::path::Path;

use toolpass_protocol::SessionConfig;

use crate::error::{StartError, StartErrorKind};
use crate::implementation::Implementation;
use crate::reference::{MCP_FIXTURE, Profile, mcp_fixture};

/// Whether any of these session configs starts the MCP test server.
pub fn uses_mcp_fixture<'a>(configs: impl IntoIterator<Item = &'a SessionConfig>) -> bool {
    configs.into_iter().any(|config| {
        config
            .mcp_servers
            .values()
            .any(|s| s.command == MCP_FIXTURE)
    })
}

/// `implementation` with the MCP test server's directory first on its
/// `PATH` (the fixture built or found as [`mcp_fixture`] says). Callers
/// ask [`uses_mcp_fixture`] first, so a run without MCP scenarios never
/// builds or looks for it. Blocking, as [`crate::reference_server`].
pub fn with_mcp_fixture(
    implementation: Implementation,
    profile: Profile,
) -> Result<Implementation, StartError> {
    let fixture = mcp_fixture(profile)?;
    let dir = fixture.parent().unwrap_or(Path::new("."));
    let path = path_with_first(dir, std::env::var_os("PATH"))?;
    Ok(implementation.env("PATH", path))
}

/// `PATH` with `dir` first, then what `current` held. Empty entries are
/// dropped: an empty entry means the working directory, which an unset
/// `PATH` must not turn into.
fn path_with_first(dir: &Path, current: Option<OsString>) -> Result<OsString, StartError> {
    let rest = current.unwrap_or_default();
    let rest = std::env::split_paths(&rest).filter(|d| !d.as_os_str().is_empty());
    let dirs = std::iter::once(dir.to_owned()).chain(rest);
    std::env::join_paths(dirs).map_err(|e| {
        StartError::new(
            StartErrorKind::Reference,
            format!("put {} on PATH for {MCP_FIXTURE}: {e}", dir.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;
    use toolpass_protocol::SessionConfig;

    use super::*;

    fn config(value: serde_json::Value) -> SessionConfig {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn only_a_config_that_starts_the_fixture_uses_it() {
        let fixture = config(json!({"mcpServers": {"notes": {"command": "toolpass-mcp-fixture"}}}));
        let other = config(json!({"mcpServers": {"fs": {"command": "npx"}}}));
        let none = config(json!({}));
        assert!(uses_mcp_fixture([&none, &fixture]));
        assert!(!uses_mcp_fixture([&none, &other]));
        assert!(!uses_mcp_fixture([]));
    }

    #[test]
    fn inside_the_checkout_the_built_fixture_is_first_on_the_implementations_path() {
        // Tests run inside the checkout: cargo builds the fixture (a no-op
        // after `cargo build`) and reports where.
        let implementation = with_mcp_fixture(Implementation::new("peer"), Profile::Dev)
            .expect("cargo builds the MCP test server");
        let (_, path) = implementation
            .environment()
            .iter()
            .find(|(key, _)| key == "PATH")
            .expect("PATH is set for the implementation");
        let first = std::env::split_paths(path).next().unwrap();
        let program = first.join(MCP_FIXTURE);
        let output = std::process::Command::new(&program)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", program.display()));
        assert!(output.status.success());
        assert!(String::from_utf8_lossy(&output.stdout).starts_with("toolpass-mcp-fixture "));
    }

    #[test]
    fn the_fixtures_directory_comes_first_on_path() {
        let path = path_with_first(Path::new("/built/debug"), Some("/usr/bin:/bin".into()));
        assert_eq!(path.unwrap(), "/built/debug:/usr/bin:/bin");
        let alone = path_with_first(Path::new("/built/debug"), None);
        assert_eq!(alone.unwrap(), "/built/debug");
    }

    #[test]
    fn a_directory_path_cannot_hold_is_refused_naming_it() {
        let error = path_with_first(Path::new("/a:b"), None).unwrap_err();
        assert!(error.to_string().contains("put /a:b on PATH"), "{error}");
    }
}
