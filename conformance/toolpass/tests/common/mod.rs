//! What the CLI tests share: the built `toolpass` binary run in a temp dir
//! through `assert_cmd`, with the dev reference server handed over through
//! `TOOLPASS_REFERENCE_SERVER` so no test waits for a release build.
//!
//! Each test crate uses a part of it, hence `dead_code` allowed here.
#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use assert_cmd::Command;
use assert_cmd::assert::Assert;
use assert_cmd::cargo::cargo_bin_cmd;

use toolpass::{Profile, REFERENCE_SERVER_ENV, mcp_fixture, reference_server};

/// The dev reference server's path, built once per test binary.
pub(crate) fn server() -> &'static str {
    static SERVER: OnceLock<String> = OnceLock::new();
    SERVER.get_or_init(|| {
        reference_server(Profile::Dev)
            .expect("cargo builds the reference server")
            .program()
            .to_owned()
    })
}

/// The dev MCP test server's path, built once per test binary.
pub(crate) fn fixture() -> &'static str {
    static FIXTURE: OnceLock<String> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        mcp_fixture(Profile::Dev)
            .expect("cargo builds the MCP test server")
            .to_str()
            .expect("a UTF-8 target directory")
            .to_owned()
    })
}

/// The built binary with `args` in `cwd`, the reference at hand, not yet
/// run: for the tests that add to its environment.
pub(crate) fn command(cwd: &Path, args: &[&str]) -> Command {
    let mut command = cargo_bin_cmd!("toolpass");
    command
        .args(args)
        .current_dir(cwd)
        .env(REFERENCE_SERVER_ENV, server())
        .env("NO_COLOR", "1");
    command
}

/// Runs the built binary with `args` in `cwd`, the reference at hand, to
/// its end. A failed `.code(..)`, `.stdout(..)` or `.stderr(..)` on what it
/// returns prints the command line, the exit code, stdout and stderr.
pub(crate) fn toolpass(cwd: &Path, args: &[&str]) -> Assert {
    command(cwd, args).assert()
}

/// What a finished run wrote on stdout.
pub(crate) fn stdout(run: &Assert) -> String {
    text(&run.get_output().stdout, "stdout")
}

/// What a finished run wrote on stderr.
pub(crate) fn stderr(run: &Assert) -> String {
    text(&run.get_output().stderr, "stderr")
}

/// The exit code of a finished run (none when a signal ended it).
pub(crate) fn code(run: &Assert) -> Option<i32> {
    run.get_output().status.code()
}

fn text(bytes: &[u8], stream: &str) -> String {
    String::from_utf8(bytes.to_vec()).unwrap_or_else(|e| panic!("{stream} is not UTF-8: {e}"))
}

/// Writes `files` (path under `dir` → text), creating directories.
pub(crate) fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}
