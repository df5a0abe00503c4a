//! Architecture invariant: `toolpass-core` is pure. No IO, no async, no
//! serde, no clock, no environment, and no dependency outside an allow-list
//! (each one justified in ARCHITECTURE.md).
//!
//! Written as an ordinary test, rust-analyzer's "tidy" style, so `cargo test`
//! fails the moment the boundary is crossed.

use std::fs;
use std::path::{Path, PathBuf};

/// Runtime dependencies the core may have, with the reason in one line.
const ALLOWED_DEPENDENCIES: &[(&str, &str)] = &[
    (
        "memchr",
        "memmem/memchr: the literal tier and every anchor search",
    ),
    (
        "encoding_rs",
        "decode/encode the legacy encodings Qwen round-trips (GBK, Shift_JIS, UTF-16)",
    ),
    (
        "chardetng",
        "guess a legacy encoding when bytes are not UTF-8, as Qwen's detector does",
    ),
    (
        "shlex",
        "split a shell command line into words as a POSIX shell would, running nothing",
    ),
    (
        "regex-automata",
        "emulate `sed -i`: leftmost-longest matching (a PikeVM) as GNU sed matches",
    ),
    (
        "regex-syntax",
        "escape the characters a POSIX pattern means literally for the engine's parser",
    ),
];

/// Dev-dependencies the core's tests may use.
const ALLOWED_DEV_DEPENDENCIES: &[&str] = &["proptest", "insta", "tempfile", "serde_json"];

/// Paths and crates whose mere mention in core source breaks purity.
const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::process",
    "std::net",
    "std::env",
    "std::time",
    "std::thread",
    "std::io::stdin",
    "std::io::stdout",
    "tokio",
    "serde",
    "async fn",
    ".await",
    "env!(",
    "option_env!(",
    "include_str!(",
    "include_bytes!(",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Names listed in one `[section]` of a Cargo.toml, read line by line.
fn section_names(manifest: &str, section: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == section;
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn dependencies_stay_inside_the_allow_list() {
    let manifest = fs::read_to_string(crate_dir().join("Cargo.toml")).unwrap();
    for name in section_names(&manifest, "[dependencies]") {
        assert!(
            ALLOWED_DEPENDENCIES
                .iter()
                .any(|(allowed, _)| *allowed == name),
            "toolpass-core gained the dependency `{name}`: the core is pure; \
             justify it in ARCHITECTURE.md and in ALLOWED_DEPENDENCIES, or put the code in toolpass-tools"
        );
    }
    for name in section_names(&manifest, "[dev-dependencies]") {
        assert!(
            ALLOWED_DEV_DEPENDENCIES.contains(&name.as_str()),
            "toolpass-core gained the dev-dependency `{name}`"
        );
    }
    assert!(
        !manifest.contains("[build-dependencies]") && !manifest.contains("build ="),
        "toolpass-core must not have a build script"
    );
}

#[test]
fn every_allowed_dependency_is_explained_in_architecture_md() {
    let architecture = fs::read_to_string(crate_dir().join("../../ARCHITECTURE.md")).unwrap();
    let manifest = fs::read_to_string(crate_dir().join("Cargo.toml")).unwrap();
    for name in section_names(&manifest, "[dependencies]") {
        assert!(
            architecture.contains(&format!("`{name}`")),
            "ARCHITECTURE.md does not say why toolpass-core depends on `{name}`"
        );
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn source_mentions_no_io_async_serde_clock_or_environment() {
    let mut files = Vec::new();
    rust_files(&crate_dir().join("src"), &mut files);
    assert!(!files.is_empty());
    let mut violations = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            // Comments may name what the crate refuses to do.
            let code = line.split("//").next().unwrap_or_default();
            for needle in FORBIDDEN {
                if code.contains(needle) {
                    violations.push(format!(
                        "{}:{}: `{needle}` in `{}`",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
            // Grouped imports would hide a forbidden path from the check above.
            if code.contains("std::{") {
                violations.push(format!(
                    "{}:{}: grouped `std::{{` import; import std modules one per line",
                    file.display(),
                    number + 1
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "toolpass-core is not pure:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_purity_check_catches_what_it_claims_to() {
    // Guard the guard: the line scanner must see a forbidden path in code and
    // ignore it in a comment.
    let scan = |line: &str| {
        FORBIDDEN
            .iter()
            .any(|n| line.split("//").next().unwrap().contains(n))
    };
    assert!(scan("use std::fs::read;"));
    assert!(scan("let t = std::time::Instant::now();"));
    assert!(!scan("// no std::fs here"));
    assert_eq!(
        section_names(
            "[dependencies]\nmemchr.workspace = true\nx = \"1\"\n[dev-dependencies]\ny = 1",
            "[dependencies]"
        ),
        ["memchr", "x"]
    );
}
