//! What the tests share: a private temporary directory per test with the
//! notes directory inside it and a file beside it, and the fixture started
//! there. Every path a test or the fixture touches is beneath that
//! directory.

#![allow(dead_code, unreachable_pub)] // each test binary uses part of it

use std::path::{Path, PathBuf};

/// The fixture's executable, as cargo built it for this test.
pub const FIXTURE: &str = env!("CARGO_BIN_EXE_toolpass-mcp-fixture");

/// What a file beside the notes directory holds; no tool may read or
/// change it.
pub const OUTSIDE_TEXT: &str = "outside the notes directory\n";

/// A test's private directory: `notes/` (the fixture's `--dir`) and
/// `outside.txt` beside it.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// A fresh private directory with `notes/` and `outside.txt`.
    #[allow(clippy::new_without_default)] // a sandbox is made, never defaulted
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir(dir.path().join("notes")).unwrap();
        std::fs::write(dir.path().join("outside.txt"), OUTSIDE_TEXT).unwrap();
        Self { dir }
    }

    /// The private directory, also the fixture's working directory.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The notes directory.
    pub fn notes(&self) -> PathBuf {
        self.dir.path().join("notes")
    }

    /// The fixture's arguments and working directory for this sandbox, plus
    /// `extra` arguments.
    pub fn command(&self, extra: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(FIXTURE);
        command
            .arg("--dir")
            .arg(self.notes())
            .args(extra)
            .current_dir(self.root());
        command
    }
}
