//! Architecture invariants across the workspace, as ordinary tests.
//!
//! - The runner never links the reference: it runs the reference server as a
//!   process, like any other implementation.
//! - The tool layer (`toolpass-core`, `toolpass-tools`) never links the
//!   protocol crate: only the server converts to wire types.
//! - The process runner (`toolpass-shell`) links neither the tools nor the
//!   protocol: the tool layer wires it in, not the other way round.
//! - Nothing in `reference/` derives or implements `Serialize`.
//! - The tools see the workspace, never the session that holds them.
//! - No type of the workspace carries the `non_exhaustive` attribute.
//! - Scenarios are data: nothing under `scenarios/` is code.
//! - Every crate opts into the workspace lints.
//! - Async (tokio) lives at the process edges only: the runner, the server,
//!   the MCP client (behind a synchronous API) and the MCP test server; the
//!   tool layer, the protocol and the scenario format are synchronous.
//! - The MCP test server (`toolpass-mcp-fixture`) links no reference crate,
//!   like the rest of the conformance side, and its tests name no path
//!   outside their temporary directory.
//! - No crate has an import circle: no file reaches itself through the
//!   files it imports (`circles.rs`).
//! - Every build path compiles shared dependencies with the same features
//!   (`features.rs`).

use std::fs;
use std::path::{Path, PathBuf};

mod circles;
mod features;

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `Cargo.toml` of the workspace's crates, relative to the root.
const CRATES: &[&str] = &[
    "reference/toolpass-core",
    "reference/toolpass-tools",
    "reference/toolpass-server",
    "reference/toolpass-race",
    "reference/toolpass-shell",
    "reference/toolpass-mcp",
    "conformance/toolpass-protocol",
    "conformance/toolpass-scenario",
    "conformance/toolpass",
    "conformance/toolpass-mcp-fixture",
    "benches",
    "workspace-hack",
];

/// Crates on the conformance side: none may depend on a reference crate.
/// The MCP test server is one: what it answers must not come from the
/// implementation it helps to judge.
const CONFORMANCE_CRATES: &[&str] = &[
    "conformance/toolpass-protocol",
    "conformance/toolpass-scenario",
    "conformance/toolpass",
    "conformance/toolpass-mcp-fixture",
];

const REFERENCE_CRATES: &[&str] = &[
    "toolpass-core",
    "toolpass-tools",
    "toolpass-server",
    "toolpass-race",
    "toolpass-shell",
    "toolpass-mcp",
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

/// Whether a manifest names `dependency` as a dependency, in any section.
fn names_dependency(manifest: &str, dependency: &str) -> bool {
    manifest.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with(&format!("{dependency} "))
            || line.starts_with(&format!("{dependency}."))
            || line.starts_with(&format!("{dependency}="))
    })
}

#[test]
fn the_runner_never_links_the_reference() {
    for dir in CONFORMANCE_CRATES {
        let text = manifest(dir);
        for reference in REFERENCE_CRATES {
            assert!(
                !names_dependency(&text, reference),
                "{dir} depends on {reference}: the runner must run the reference as a process"
            );
        }
    }
}

#[test]
fn the_tool_layer_never_links_the_protocol() {
    // The tool layer has its own types (ToolErrorCode, ToolResult); the
    // server is the one place they become wire types.
    for dir in ["reference/toolpass-core", "reference/toolpass-tools"] {
        assert!(
            !names_dependency(&manifest(dir), "toolpass-protocol"),
            "{dir} depends on toolpass-protocol: convert in reference/toolpass-server instead"
        );
    }
    assert!(
        names_dependency(&manifest("reference/toolpass-server"), "toolpass-protocol"),
        "this test no longer reads manifests the way they are written"
    );
}

#[test]
fn the_process_runner_links_neither_the_tools_nor_the_protocol() {
    let text = manifest("reference/toolpass-shell");
    for crate_ in ["toolpass-tools", "toolpass-protocol", "toolpass-server"] {
        assert!(
            !names_dependency(&text, crate_),
            "toolpass-shell depends on {crate_}: the tool layer wires the runner in, not the reverse"
        );
    }
    assert!(
        names_dependency(&text, "portable-pty"),
        "this test no longer reads the runner's manifest the way it is written"
    );
}

#[test]
fn async_lives_only_at_the_process_edges() {
    // The server's dispatcher and the runner's supervisor are async; the
    // tools they call are plain functions, run on a blocking pool.
    for dir in [
        "reference/toolpass-core",
        "reference/toolpass-tools",
        "reference/toolpass-shell",
        "conformance/toolpass-protocol",
        "conformance/toolpass-scenario",
    ] {
        assert!(
            !names_dependency(&manifest(dir), "tokio"),
            "{dir} depends on tokio: keep async in the runner and the server's edge"
        );
    }
    for dir in [
        "reference/toolpass-server",
        "reference/toolpass-mcp",
        "conformance/toolpass",
        "conformance/toolpass-mcp-fixture",
    ] {
        assert!(
            names_dependency(&manifest(dir), "tokio"),
            "this test no longer reads manifests the way they are written"
        );
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

/// The files at or below `dir`, build output and installed packages left
/// out.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_owned());
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let skipped = path
            .file_name()
            .is_some_and(|n| n == "target" || n == "node_modules");
        if skipped {
            continue;
        }
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every `.rs` file under `dirs` (relative to the workspace root).
fn rust_sources(dirs: &[&str]) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for dir in dirs {
        files_under(&workspace_root().join(dir), &mut files);
    }
    let sources: Vec<_> = files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    assert!(!sources.is_empty(), "no Rust sources under {dirs:?}");
    sources
}

/// Whether `source` derives `Serialize` or implements it by hand.
fn serializes(source: &str) -> bool {
    let derives = source.split("#[derive(").skip(1).any(|rest| {
        let list = rest.split(")]").next().unwrap_or(rest);
        list.split(',').any(|name| {
            let name = name.trim();
            name == "Serialize" || name.ends_with("::Serialize")
        })
    });
    derives || source.contains("Serialize for ")
}

#[test]
fn nothing_in_the_reference_derives_serialize() {
    assert!(serializes("#[derive(Debug, Serialize)]\nstruct A;"));
    assert!(serializes("#[derive(serde::Serialize)]"));
    assert!(serializes("impl ::serde::Serialize for A {}"));
    assert!(!serializes(
        "#[derive(Debug, Deserialize)]\n// Serializes the calls"
    ));
    for (path, text) in rust_sources(&["reference"]) {
        assert!(
            !serializes(&text),
            "{} serializes: toolpass-protocol alone defines wire types, the server converts",
            path.display()
        );
    }
}

#[test]
fn the_tools_see_the_workspace_never_the_session() {
    // A tool that reached for the session could reach the registry that
    // holds it: tool -> session -> registry -> tool is the import loop the
    // Workspace split removed.
    let mut sources = rust_sources(&["reference/toolpass-tools/src/tools"]);
    sources.extend(rust_sources(&["reference/toolpass-tools/src/tool.rs"]));
    for (path, text) in sources {
        assert!(
            !text.contains("crate::session"),
            "{} uses the session; tools take &Workspace",
            path.display()
        );
    }
}

#[test]
fn no_type_of_the_workspace_is_non_exhaustive() {
    // Inside one workspace the `non_exhaustive` attribute only forces `_` arms, so a new
    // variant compiles and is met at run time instead of at every match.
    let attribute = ["#[non", "_exhaustive]"].concat();
    for (path, text) in rust_sources(&["reference", "conformance", "benches", "fuzz"]) {
        assert!(
            !text.contains(&attribute),
            "{} has {attribute}: match the enum exhaustively instead",
            path.display()
        );
    }
}

#[test]
fn the_mcp_fixtures_tests_name_no_path_outside_their_temporary_directory() {
    // Each test makes its own temporary directory (`tests/common`) and
    // builds every path from it. An absolute path or a climb in a string
    // literal would be a path the test does not own; the one climb allowed
    // is the symlink from `notes/` to the file beside it, which stays in
    // the temporary directory.
    let allowed_climb = "\"../outside.txt\"";
    for (path, text) in rust_sources(&["conformance/toolpass-mcp-fixture/tests"]) {
        let text = text.replace(allowed_climb, "");
        for pattern in ["\"/", "\"..", "../", "temp_dir()", "home_dir"] {
            assert!(
                !text.contains(pattern),
                "{} has `{pattern}`: build paths from the test's Sandbox",
                path.display()
            );
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
