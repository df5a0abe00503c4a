//! Architecture invariants across the workspace, as ordinary tests.
//!
//! - The runner never links the reference: it runs the reference server as a
//!   process, like any other implementation.
//! - Scenarios are data: nothing under `scenarios/` is code.
//! - Every crate opts into the workspace lints.

use std::fs;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `Cargo.toml` of the workspace's crates, relative to the root.
const CRATES: &[&str] = &[
    "reference/toolpass-core",
    "reference/toolpass-tools",
    "reference/toolpass-server",
    "reference/toolpass-race",
    "conformance/toolpass-protocol",
    "conformance/toolpass-scenario",
    "conformance/toolpass",
    "benches",
];

/// Crates on the conformance side: none may depend on a reference crate.
const CONFORMANCE_CRATES: &[&str] = &[
    "conformance/toolpass-protocol",
    "conformance/toolpass-scenario",
    "conformance/toolpass",
];

const REFERENCE_CRATES: &[&str] = &[
    "toolpass-core",
    "toolpass-tools",
    "toolpass-server",
    "toolpass-race",
];

fn manifest(dir: &str) -> String {
    fs::read_to_string(workspace_root().join(dir).join("Cargo.toml")).unwrap()
}

#[test]
fn every_crate_is_listed_here_and_in_the_workspace() {
    let root = fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
    for dir in CRATES {
        assert!(
            root.contains(&format!("\"{dir}\"")),
            "{dir} is not a workspace member"
        );
    }
    let members = root.matches("\n    \"").count();
    assert_eq!(
        members,
        CRATES.len(),
        "a workspace member is missing from CRATES in this test"
    );
}

#[test]
fn the_runner_never_links_the_reference() {
    for dir in CONFORMANCE_CRATES {
        let text = manifest(dir);
        for reference in REFERENCE_CRATES {
            let linked = text.lines().any(|line| {
                let line = line.trim_start();
                line.starts_with(&format!("{reference} "))
                    || line.starts_with(&format!("{reference}."))
                    || line.starts_with(&format!("{reference}="))
            });
            assert!(
                !linked,
                "{dir} depends on {reference}: the runner must run the reference as a process"
            );
        }
    }
}

#[test]
fn every_crate_uses_the_workspace_lints() {
    for dir in CRATES {
        let text = manifest(dir);
        assert!(
            text.contains("[lints]\nworkspace = true"),
            "{dir} does not opt into [workspace.lints]"
        );
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn scenarios_are_data() {
    let mut files = Vec::new();
    files_under(&workspace_root().join("scenarios"), &mut files);
    let code: Vec<_> = files
        .iter()
        .filter(|p| {
            !matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("yaml" | "snap" | "md")
            )
        })
        .collect();
    assert!(
        code.is_empty(),
        "scenarios/ must hold only YAML, snapshots and docs: {code:?}"
    );
}

/// The names under `[dependencies]` of a manifest.
fn dependency_names(manifest: &str) -> Vec<String> {
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    deps.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| line.split(['=', '.', ' ']).next().unwrap().to_owned())
        .collect()
}

#[test]
fn the_fuzz_lockfile_knows_every_dependency_of_the_crates_it_fuzzes() {
    // fuzz/ has its own lockfile and CI checks it with --locked: a new
    // dependency of a fuzzed crate must land in it too, or CI fails far
    // from the change. The fuzzed crates are fuzz/Cargo.toml's path
    // dependencies.
    let root = workspace_root();
    let lock = fs::read_to_string(root.join("fuzz/Cargo.lock")).unwrap();
    let fuzz = fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
    let fuzzed: Vec<(String, &str)> = fuzz
        .lines()
        .filter_map(|line| {
            let dir = line.split("path = \"../").nth(1)?.split('"').next()?;
            Some((line.split(' ').next()?.to_owned(), dir))
        })
        .collect();
    assert!(
        fuzzed.iter().any(|(name, _)| name == "toolpass-core"),
        "fuzz/Cargo.toml no longer names its path dependencies as this test reads them"
    );
    for (name, dir) in &fuzzed {
        for dependency in dependency_names(&manifest(dir)) {
            assert!(
                lock.contains(&format!("name = \"{dependency}\"")),
                "fuzz/Cargo.lock lacks `{dependency}` (a dependency of {name}): run `cargo check --manifest-path fuzz/Cargo.toml` and commit the lockfile"
            );
            // An internal crate reached only through another would escape
            // this check: the fuzz manifest must name it too.
            if dependency.starts_with("toolpass") {
                assert!(
                    fuzzed.iter().any(|(n, _)| *n == dependency),
                    "{name} depends on {dependency}, which fuzz/Cargo.toml does not name"
                );
            }
        }
    }
}
