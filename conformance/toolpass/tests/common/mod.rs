//! What the CLI tests share: the built `toolpass` binary run in a temp dir,
//! with the dev reference server handed over through
//! `TOOLPASS_REFERENCE_SERVER` so no test waits for a release build.
//!
//! Each test crate uses a part of it, hence `dead_code` allowed here.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

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

/// Runs the built binary with `args` in `cwd`, the reference at hand.
pub(crate) fn toolpass(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolpass"))
        .args(args)
        .current_dir(cwd)
        .env(REFERENCE_SERVER_ENV, server())
        .env("NO_COLOR", "1")
        .output()
        .expect("the toolpass binary runs")
}

/// The exit code, stdout and stderr of a finished run.
pub(crate) fn parts(output: Output) -> (Option<i32>, String, String) {
    (
        output.status.code(),
        String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    )
}

/// Writes `files` (path under `dir` → text), creating directories.
pub(crate) fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}
