//! For tests of this crate and of the tool layer: the MCP test server
//! (`toolpass-mcp-fixture`), built by cargo, and a spec that starts it.
//!
//! The fixture is a binary of another package, which no `CARGO_BIN_EXE_`
//! reaches from here; cargo builds it (a no-op when it is fresh) into the
//! target directory these tests run from, where it is found beside them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use crate::ServerSpec;

/// The fixture's package and binary name.
pub const FIXTURE: &str = "toolpass-mcp-fixture";

/// The fixture's executable, built once per test process.
///
/// # Panics
/// When cargo cannot build it: the tests that need it cannot run.
pub fn fixture() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--package", FIXTURE, "--bin", FIXTURE])
            .status()
            .expect("run cargo to build the MCP test server");
        assert!(status.success(), "cargo could not build {FIXTURE}");
        // A test runs from <target>/<profile>/deps/; binaries sit one up.
        let exe = std::env::current_exe().expect("the test's own path");
        let profile = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test runs inside a target directory");
        let path = profile.join(FIXTURE);
        assert!(path.is_file(), "{} was not built", path.display());
        path
    })
}

/// A spec starting the fixture in `cwd` with `args`, timeouts of a few
/// seconds.
#[must_use]
pub fn fixture_spec(cwd: &Path, args: &[&str]) -> ServerSpec {
    ServerSpec {
        command: fixture().display().to_string(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: BTreeMap::new(),
        cwd: cwd.to_owned(),
        initialize_timeout: Duration::from_secs(10),
        request_timeout: Duration::from_secs(10),
    }
}

/// Whether process `pid` has gone (exited and been reaped).
#[must_use]
pub fn is_gone(pid: u32) -> bool {
    // A zombie still has its /proc entry; its state letter is Z.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}
