//! The built-in scenario suite: this workspace's `scenarios/`, embedded in
//! the binary at build time, so an installed `toolpass` runs it with no
//! checkout. Inside the checkout it was built from ([`crate::checkout`])
//! the runner reads the files instead, so a developer's edits count without
//! a rebuild. Either way a file is named `scenarios/<id>.yaml` (or its path
//! in the checkout) in every error and report.

use std::path::{Path, PathBuf};

use include_dir::{Dir, DirEntry, include_dir};
use toolpass_scenario::{LoadErrors, Scenario, load_dir, load_files};

use crate::checkout::checkout;

/// Every file of `scenarios/` as it was when the runner was built.
static EMBEDDED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../scenarios");

/// How the embedded files are named: as a checkout names them, relative
/// to its root.
pub const EMBEDDED_DIR: &str = "scenarios";

/// Where the built-in suite is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Builtin {
    /// The checkout's `scenarios/`, read from disk.
    Checkout(PathBuf),
    /// The copy inside the binary.
    Embedded,
}

impl Builtin {
    /// The checkout's files when the runner works inside its checkout,
    /// else the embedded copy.
    pub fn here() -> Builtin {
        match checkout() {
            Some(checkout) => {
                let dir = checkout.scenarios();
                // Canonical, so reports name `/work/x/scenarios/...`.
                Builtin::Checkout(dir.canonicalize().unwrap_or(dir))
            }
            None => Builtin::Embedded,
        }
    }

    /// Every scenario of the suite, sorted by id; or every problem.
    pub fn load(&self) -> Result<Vec<Scenario>, LoadErrors> {
        match self {
            Builtin::Checkout(dir) => load_dir(dir),
            Builtin::Embedded => load_files(Path::new(EMBEDDED_DIR), embedded_files()),
        }
    }

    /// Where the suite comes from, in a sentence's words, for the headers
    /// of `run`, `list` and `validate`.
    pub fn describe(&self) -> String {
        match self {
            Builtin::Checkout(dir) => format!(
                "the built-in scenarios from this checkout ({})",
                dir.display()
            ),
            Builtin::Embedded => format!(
                "the built-in scenarios embedded in this binary (toolpass {})",
                env!("CARGO_PKG_VERSION")
            ),
        }
    }
}

/// The embedded files as (path under `scenarios/`, bytes).
pub fn embedded_files() -> Vec<(&'static Path, &'static [u8])> {
    fn walk(dir: &'static Dir<'static>, out: &mut Vec<(&'static Path, &'static [u8])>) {
        for entry in dir.entries() {
            match entry {
                DirEntry::Dir(dir) => walk(dir, out),
                DirEntry::File(file) => out.push((file.path(), file.contents())),
            }
        }
    }
    let mut files = Vec::new();
    walk(&EMBEDDED, &mut files);
    files
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::{Builtin, embedded_files};
    use crate::checkout::built_root;

    #[test]
    fn the_embedded_copy_is_the_checkouts_suite() {
        let disk = Builtin::Checkout(built_root().join("scenarios"))
            .load()
            .unwrap_or_else(|e| panic!("{e}"));
        let embedded = Builtin::Embedded.load().unwrap_or_else(|e| panic!("{e}"));
        let ids =
            |s: &[toolpass_scenario::Scenario]| s.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&embedded), ids(&disk));
        let readme = embedded.iter().find(|s| s.id == "README").expect("README");
        assert_eq!(
            readme.path.as_deref(),
            Some(Path::new("scenarios/README.yaml"))
        );
        // Every file, byte for byte: a stale embedding (a file added,
        // removed or changed after the build) would show here.
        let root = built_root().join("scenarios");
        let mut on_disk = Vec::new();
        files_under(&root, &root, &mut on_disk);
        on_disk.sort();
        let mut embedded: Vec<_> = embedded_files()
            .into_iter()
            .map(|(path, bytes)| (path.to_owned(), bytes.to_vec()))
            .collect();
        embedded.sort();
        assert_eq!(embedded.len(), on_disk.len());
        for ((path, bytes), (disk_path, disk_bytes)) in embedded.iter().zip(&on_disk) {
            assert_eq!(path, disk_path);
            assert!(bytes == disk_bytes, "{} differs", path.display());
        }
    }

    fn files_under(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files_under(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path.strip_prefix(root).unwrap().to_owned(), bytes));
            }
        }
    }
}
