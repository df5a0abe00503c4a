//! One build: every way this workspace is built compiles each shared
//! third-party crate with the same features, so switching from `cargo test
//! --workspace` to `cargo run --release -p toolpass` or to the runner's own
//! `cargo build -p toolpass-server` reuses what is built instead of
//! recompiling it. The `workspace-hack` crate (cargo hakari) turns on the
//! union; this test fails when a dependency change makes a path drift.

use std::collections::BTreeMap;
use std::process::Command;

use super::workspace_root;

/// What one build path compiles: each third-party package (`name vX.Y.Z`)
/// with its features.
type Features = BTreeMap<String, String>;

/// `cargo tree` of `selection`, following `edges`, as [`Features`].
fn features(selection: &[&str], edges: &str) -> Features {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(workspace_root())
        .args(["tree", "--locked", "--no-dedupe", "--prefix", "none"])
        .args(["--format", "{p}|{f}", "--edges", edges])
        .args(selection)
        .output()
        .expect("run cargo tree");
    let stdout = String::from_utf8(output.stdout).expect("cargo tree prints UTF-8");
    assert!(
        output.status.success(),
        "cargo tree {selection:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .map(|line| line.trim_end_matches(" (*)"))
        .filter_map(|line| line.split_once('|'))
        // A workspace member prints its path: `name vX (/path)`.
        .filter(|(package, _)| !package.contains(" ("))
        .map(|(package, features)| (package.to_owned(), features.to_owned()))
        .collect()
}

/// How the workspace is built: the README's commands, the runner's own
/// builds of the reference server and the MCP test server, CI's race
/// harness and the benches (with their dev-dependencies, as `cargo bench`
/// resolves them).
const BUILD_PATHS: &[(&[&str], &str)] = &[
    (&["--package", "toolpass"], "normal,build"),
    (&["--package", "toolpass-server"], "normal,build"),
    (&["--package", "toolpass-mcp-fixture"], "normal,build"),
    (&["--package", "toolpass-race"], "normal,build"),
    (&["--package", "toolpass-benches"], "normal,build,dev"),
];

#[test]
fn every_build_path_compiles_shared_crates_with_the_workspace_features() {
    let workspace = features(&["--workspace"], "normal,build,dev");
    assert!(
        workspace.len() > 50,
        "cargo tree listed only {} third-party packages for the workspace",
        workspace.len()
    );
    let mut drifts = Vec::new();
    for (selection, edges) in BUILD_PATHS {
        for (package, features) in features(selection, edges) {
            match workspace.get(&package) {
                Some(theirs) if *theirs == features => {}
                Some(theirs) => drifts.push(format!(
                    "{}: {package} gets [{features}], the workspace [{theirs}]",
                    selection.join(" ")
                )),
                None => drifts.push(format!(
                    "{}: {package} is not in the workspace's tree",
                    selection.join(" ")
                )),
            }
        }
    }
    assert!(
        drifts.is_empty(),
        "build paths resolve other features than the workspace, so each recompiles shared \
         crates; run `just hakari` (cargo hakari generate && cargo hakari manage-deps):\n{}",
        drifts.join("\n")
    );
}
