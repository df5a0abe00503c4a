//! The runner installed away from its checkout, as `cargo install` leaves
//! it: `toolpass` and `toolpass-server` in one `bin/` directory, run from
//! a project directory outside the checkout with no cargo, no `CARGO`, and
//! `HOME` and `CARGO_HOME` pointing nowhere.
//!
//! The binaries are the ones this `cargo test` built, copied into a temp
//! prefix: `cargo install --path` builds the same crates again in release
//! (over four minutes for both on the project's 2-core machine; README),
//! and what the test is about is where the binaries stand and what they
//! can see, not how they were compiled.
//!
//! Proof that the checkout is not used: `cargo` on `PATH` is a fake that
//! fails loudly and leaves a mark, and every command runs under
//! `strace -f -e trace=%file` (when strace is installed; `.ci/run`
//! installs it, and under `CI` its absence fails the test) and no traced
//! path may lie in the checkout, in the runner or in any implementation
//! it starts.

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use assert_cmd::assert::Assert;
use predicates::prelude::*;
use predicates::str::{contains, ends_with, starts_with};

use common::{stderr, stdout};
use toolpass::checkout::built_root;

/// A prefix with `bin/toolpass` (and `bin/toolpass-server` when asked),
/// the fake cargo, and a project directory to run in.
struct Installed {
    temp: tempfile::TempDir,
    /// Where `toolpass` was put.
    bin: PathBuf,
    /// Directories put on `PATH` before the system's.
    path: Vec<PathBuf>,
    /// Each command's trace, checked when the test ends.
    traces: Vec<PathBuf>,
}

impl Installed {
    /// `toolpass` in `<prefix>/bin`, with the server and the MCP test server
    /// beside it or not.
    fn new(with_server: bool) -> Installed {
        let temp = tempfile::tempdir().unwrap();
        let checkout = checkout_roots();
        assert!(
            !checkout.iter().any(|root| temp.path().starts_with(root)),
            "the temp directory {} is inside the checkout: set TMPDIR elsewhere for this test",
            temp.path().display()
        );
        let bin = temp.path().join("prefix/bin");
        std::fs::create_dir_all(&bin).unwrap();
        copy(Path::new(env!("CARGO_BIN_EXE_toolpass")), &bin);
        if with_server {
            copy(Path::new(common::server()), &bin);
            copy(Path::new(common::fixture()), &bin);
        }
        let fake = temp.path().join("fake");
        std::fs::create_dir_all(&fake).unwrap();
        let mark = temp.path().join("cargo-was-run");
        let script = format!(
            "#!/bin/sh\necho \"fake cargo: toolpass ran cargo outside its checkout: $*\" >&2\n\
             echo \"$*\" >> '{}'\nexit 101\n",
            mark.display()
        );
        executable(&fake.join("cargo"), &script);
        for dir in ["project", "tmp"] {
            std::fs::create_dir_all(temp.path().join(dir)).unwrap();
        }
        Installed {
            temp,
            bin,
            path: vec![fake],
            traces: Vec::new(),
        }
    }

    fn project(&self) -> PathBuf {
        self.temp.path().join("project")
    }

    /// Runs the installed `toolpass` with `args` in the project directory,
    /// to its end.
    fn run(&mut self, args: &[&str]) -> Assert {
        let toolpass = self.bin.join("toolpass");
        let strace = toolpass::on_path("strace");
        if strace.is_none() && std::env::var_os("CI").is_some() {
            panic!("strace is not installed: CI traces the installed runner (.ci/run installs it)");
        }
        let mut command = match &strace {
            Some(strace) => {
                let trace = self
                    .temp
                    .path()
                    .join(format!("trace-{}.txt", self.traces.len()));
                let mut command = Command::new(strace);
                command
                    // `-s`: whole paths; strace cuts strings at 32
                    // characters by default, which would hide a checkout
                    // path past them.
                    .args(["-f", "-qq", "-s", "65536", "-e", "trace=%file", "-o"])
                    .arg(&trace)
                    .arg(&toolpass);
                self.traces.push(trace);
                command
            }
            None => Command::new(&toolpass),
        };
        let mut path = self.path.clone();
        path.extend([
            PathBuf::from("/usr/local/bin"),
            "/usr/bin".into(),
            "/bin".into(),
        ]);
        let nowhere = self.temp.path().join("nowhere");
        command
            .args(args)
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("HOME", &nowhere)
            .env("CARGO_HOME", nowhere.join("cargo"))
            .env("RUSTUP_HOME", nowhere.join("rustup"))
            .env("TMPDIR", self.temp.path().join("tmp"))
            .env("NO_COLOR", "1");
        command.assert()
    }

    /// Fails when cargo was run or any traced path lies in the checkout.
    fn check_the_checkout_was_not_used(&self) {
        if let Some(use_of_it) = self.use_of_the_checkout() {
            panic!("{use_of_it}");
        }
    }

    /// How the commands so far used the checkout or cargo, if they did.
    fn use_of_the_checkout(&self) -> Option<String> {
        let mark = self.temp.path().join("cargo-was-run");
        if let Ok(args) = std::fs::read_to_string(&mark) {
            return Some(format!("cargo was run: cargo {args}"));
        }
        for trace in &self.traces {
            let text = std::fs::read_to_string(trace).unwrap();
            assert!(
                text.contains("execve("),
                "an empty trace: {}",
                trace.display()
            );
            for root in checkout_roots() {
                let (exact, below) = (
                    format!("\"{}\"", root.display()),
                    format!("\"{}/", root.display()),
                );
                if let Some(line) = text
                    .lines()
                    // `expect_no_processes` reads every process's working
                    // directory: a cargo running in the checkout is looked
                    // at, never used.
                    .filter(|line| {
                        !line.contains("readlink(\"/proc/") && !line.contains("<... readlink resumed>")
                    })
                    .find(|line| line.contains(&exact) || line.contains(&below))
                {
                    return Some(format!("the installed runner touched its checkout: {line}"));
                }
            }
        }
        None
    }
}

/// The checkout as the runner was built from it, and its real path.
fn checkout_roots() -> Vec<PathBuf> {
    let root = built_root();
    let real = root.canonicalize().unwrap();
    if real == root {
        vec![root]
    } else {
        vec![root, real]
    }
}

fn copy(binary: &Path, dir: &Path) {
    std::fs::copy(binary, dir.join(binary.file_name().unwrap())).unwrap();
}

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// How many scenarios the checkout has: what the binary must carry.
fn builtin_count() -> usize {
    toolpass_scenario::load_dir(&built_root().join("scenarios"))
        .unwrap()
        .len()
}

const EMBEDDED: &str = "toolpass: the built-in scenarios embedded in this binary";

#[test]
fn the_installed_runner_runs_the_embedded_suite_against_the_server_beside_it() {
    let mut installed = Installed::new(true);
    let count = builtin_count();

    installed
        .run(&["validate"])
        .success()
        .stdout(format!("{count} scenarios OK\n"))
        .stderr(starts_with(EMBEDDED));

    let listed = installed
        .run(&["list"])
        .success()
        .stderr(starts_with(EMBEDDED));
    let out = stdout(&listed);
    assert_eq!(out.lines().count(), count, "{out}");

    // The whole suite: every sandbox and `files:` fixture set up from the
    // embedded copy, against the server found beside the runner.
    let server = installed.bin.join("toolpass-server");
    installed
        .run(&["run", "--jsonl", "run.jsonl"])
        .success()
        .stderr(
            contains(format!(
                "running against toolpass-reference 0.1.0 ({})",
                server.display()
            ))
            .and(contains(EMBEDDED)),
        )
        .stdout(contains(format!("{count} scenarios: ")));
    // The report names each scenario's file as a checkout does.
    let report = std::fs::read_to_string(installed.project().join("run.jsonl")).unwrap();
    assert!(
        report.contains(r#""id":"README","path":"scenarios/README.yaml""#),
        "{report}"
    );

    // A scenario of the user's own with a built-in id: both files named.
    common::write(
        &installed.project(),
        &[(
            "mine/read/unchanged-placeholder.yaml",
            "title: t\nspec: read.paging\nsteps: [{call: read_file}]\n",
        )],
    );
    installed
        .run(&["validate", "--scenarios", "mine", "--with-builtin"])
        .code(1)
        .stderr(ends_with(
            "\nscenarios/read/unchanged-placeholder.yaml: the id `read/unchanged-placeholder` \
             is also the scenario mine/read/unchanged-placeholder.yaml\n",
        ));

    // Snapshots cannot be blessed into the binary.
    installed
        .run(&["run", "--bless"])
        .code(2)
        .stderr(contains("--bless rewrites snapshot files"));

    // Named adapters live in the checkout.
    installed
        .run(&["run", "--impl", "qwen-code"])
        .code(2)
        .stderr(
            contains("named adapters (conformance/adapters/NAME) need the toolpass checkout").and(
                contains("--impl \"CHECKOUT/conformance/adapters/qwen-code/run\""),
            ),
        );

    installed.check_the_checkout_was_not_used();
}

#[test]
fn a_failure_in_an_embedded_scenario_names_its_file_and_line() {
    let mut installed = Installed::new(true);
    // IMPLEMENTING.md's Python example (CI needs python3 for it anyway)
    // does no legacy encodings, which this required scenario expects.
    let example = built_root().join("examples/python/toolpass_example.py");
    std::fs::copy(example, installed.project().join("example.py")).unwrap();
    let id = "edit/fidelity/gbk-chinese-edit";
    let file = format!("scenarios/{id}.yaml");
    installed
        .run(&["run", "--impl", "python3 example.py", "--filter", id])
        .code(1)
        .stdout(
            contains(format!("FAIL {id} (required) {file}")).and(contains(format!("` at {file}:"))),
        );
    installed.check_the_checkout_was_not_used();
}

#[test]
fn the_server_is_found_on_path_and_its_absence_names_every_place_looked_at() {
    let mut installed = Installed::new(false);
    let err = stderr(&installed.run(&["run", "--filter", "read/**"]).code(2));
    let beside = installed.bin.join("toolpass-server");
    for place in [
        "looked at TOOLPASS_REFERENCE_SERVER (not set)".to_owned(),
        format!(
            "is outside the checkout it was built from ({})",
            built_root().display()
        ),
        format!("beside the runner ({}: none)", beside.display()),
        "on PATH (no toolpass-server)".to_owned(),
    ] {
        assert!(err.contains(&place), "{place}: {err}");
    }

    let elsewhere = installed.temp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    copy(Path::new(common::server()), &elsewhere);
    installed.path.push(elsewhere.clone());
    installed
        .run(&["run", "--filter", "read/**"])
        .success()
        .stderr(contains(format!(
            "({})",
            elsewhere.join("toolpass-server").display()
        )));
    installed.check_the_checkout_was_not_used();
}

#[test]
fn the_checks_bite_on_cargo_and_on_a_file_of_the_checkout() {
    // A command line that is cargo runs the fake one.
    let mut installed = Installed::new(true);
    installed
        .run(&["run", "--impl", "cargo build", "--filter", "read/**"])
        .code(2);
    assert_eq!(
        installed.use_of_the_checkout().as_deref(),
        Some("cargo was run: cargo build\n")
    );

    // Scenarios read from the checkout show in the trace.
    if toolpass::on_path("strace").is_some() {
        let mut installed = Installed::new(false);
        let scenarios = built_root().join("scenarios");
        installed
            .run(&["validate", "--scenarios", &scenarios.to_string_lossy()])
            .success();
        let use_of_it = installed
            .use_of_the_checkout()
            .expect("the trace shows the checkout");
        assert!(
            use_of_it.contains(&format!("\"{}", scenarios.display())),
            "{use_of_it}"
        );
    }
}
