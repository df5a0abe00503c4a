//! Whether the runner works inside the checkout it was built from.
//!
//! Three things need this repository's files: running `cargo` to build the
//! reference server, reading `scenarios/` from disk so a developer's edits
//! are live, and the named adapters of `conformance/adapters/`. An
//! installed `toolpass` run in someone else's project must do none of
//! them: it has the suite inside its binary and finds `toolpass-server`
//! beside itself or on `PATH`. The rule: the runner is in its checkout when
//! the current directory is at or below the workspace root it was built
//! from *and* that workspace's `Cargo.toml` is still there. The first test
//! is lexical, so a runner working elsewhere touches no file of the
//! checkout at all (its installed-runner test traces that).

use std::path::{Path, PathBuf};

/// The workspace this runner was built from, when it runs inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    root: PathBuf,
}

impl Checkout {
    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace's `Cargo.toml`.
    pub fn manifest(&self) -> PathBuf {
        self.root.join("Cargo.toml")
    }

    /// The built-in scenarios as files.
    pub fn scenarios(&self) -> PathBuf {
        self.root.join("scenarios")
    }

    /// The adapters `--impl NAME` starts (`NAME/run`).
    pub fn adapters(&self) -> PathBuf {
        self.root.join("conformance/adapters")
    }
}

/// The checkout the runner works in: the workspace it was built from, when
/// the current directory is inside it and its manifest exists; else `None`.
pub fn checkout() -> Option<Checkout> {
    let cwd = std::env::current_dir().ok()?;
    inside(&built_root(), &cwd)
}

/// The workspace root this binary was built from, as cargo named it.
pub fn built_root() -> PathBuf {
    // This crate is `conformance/toolpass`: two levels below the root.
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(manifest_dir)
        .to_owned()
}

/// [`checkout`] for a given root and current directory.
fn inside(root: &Path, cwd: &Path) -> Option<Checkout> {
    // Lexical first: outside the root, nothing of the root is touched.
    if !cwd.starts_with(root) {
        return None;
    }
    let checkout = Checkout {
        root: root.to_owned(),
    };
    checkout.manifest().is_file().then_some(checkout)
}

/// Why [`checkout`] is `None`, for messages naming where the runner looked.
pub fn why_not_inside() -> String {
    let root = built_root();
    match std::env::current_dir() {
        Err(e) => format!("the current directory is unknown ({e})"),
        Ok(cwd) if !cwd.starts_with(&root) => format!(
            "the current directory {} is outside the checkout it was built from ({})",
            cwd.display(),
            root.display()
        ),
        Ok(_) => format!(
            "the checkout it was built from has no {}",
            root.join("Cargo.toml").display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{built_root, inside};

    #[test]
    fn the_built_root_holds_this_workspace() {
        assert!(
            built_root()
                .join("conformance/toolpass/Cargo.toml")
                .is_file()
        );
    }

    #[test]
    fn inside_means_below_the_root_with_its_manifest_there() {
        let root = built_root();
        let found = inside(&root, &root.join("conformance")).expect("inside");
        assert_eq!(found.root(), root);
        assert_eq!(found.scenarios(), root.join("scenarios"));
        assert!(inside(&root, &root).is_some());
        // A sibling whose name starts like the root's is not inside it.
        let sibling = format!("{}-other", root.display());
        assert_eq!(inside(&root, Path::new(&sibling)), None);
        assert_eq!(inside(&root, Path::new("/")), None);
        // A root whose manifest is gone is no checkout.
        let gone = tempfile::tempdir().unwrap();
        assert_eq!(inside(gone.path(), &gone.path().join("sub")), None);
    }
}
