//! `toolpass bench --baseline` catches an implementation made slower: the
//! baseline is saved with the relay of [`crate::slow_proxy`] undelayed,
//! then the same relay holding each answer back 4× the server's time must
//! fail the gate. The delay is far beyond the limit on purpose: a shared
//! machine's noise must not make this test flaky (README has the measured
//! figures of a 30% delay at the default limit).

use std::path::Path;

use assert_cmd::assert::Assert;
use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use predicates::str::{contains, starts_with};
use toolpass::bench::{BenchConfig, BenchEvent};
use toolpass::{Options, Profile, REFERENCE_SERVER_ENV, Supervisor, reference_server};
use toolpass_scenario::{Scenario, parse_str};

use crate::misbehave::BEHAVIOUR_ENV;

const SUITE: &str = "title: read then edit\nspec: edit.match.exact\nfiles: {a.txt: \"one\\n\"}\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/a.txt\"}\n  - call: edit\n    args: {file_path: \"{root}/a.txt\", old_string: one, new_string: \"1\"}\n";

/// `toolpass bench` in `dir` of the relay delaying answers by `percent`%,
/// with the reference first as the control, and `args`, to its end.
fn bench_relay(dir: &Path, percent: u32, args: &[&str]) -> Assert {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let relay = format!("env {BEHAVIOUR_ENV}=delay:{percent} '{}'", exe.display());
    let server = reference_server(Profile::Dev).expect("cargo builds the reference server");
    cargo_bin_cmd!("toolpass")
        .args(["bench", "--scenarios", "s", "--impl", &relay])
        .args(["--rounds", "3", "--warmup", "1", "--startups", "1"])
        .args(args)
        .current_dir(dir)
        .env(REFERENCE_SERVER_ENV, server.program())
        .env("NO_COLOR", "1")
        .assert()
}

pub(crate) async fn a_slowed_implementation_fails_the_bench_gate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("s")).unwrap();
    // Ten scenarios: each tool called ten times a round, the fewest a
    // figure needs to be judged.
    for name in 0..10 {
        std::fs::write(dir.path().join(format!("s/{name}.yaml")), SUITE).unwrap();
    }
    bench_relay(dir.path(), 0, &["--save-baseline", "base.json"]).success();
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("base.json")).unwrap()).unwrap();
    assert_eq!(baseline["format"], "toolpass-bench-baseline");
    // The reference was put first, as the control, and the relay speaks
    // for it.
    assert_eq!(baseline["implementations"][0]["name"], "toolpass-reference");
    assert_eq!(baseline["implementations"][1]["name"], "toolpass-reference");

    bench_relay(
        dir.path(),
        400,
        &[
            "--baseline",
            "base.json",
            "--max-regression",
            "100%",
            "--markdown",
            "-",
        ],
    )
    .code(1)
    .stdout(
        starts_with("### toolpass bench against `base.json`\n")
            // Which tools regress and which are too noisy to tell depends
            // on the machine; that some regress, and fail the run, does not.
            .and(
                predicate::function(|out: &str| {
                    out.lines().any(|l| {
                        l.starts_with("| toolpass-reference | ")
                            && l.ends_with("| **REGRESSION** |")
                    })
                })
                .fn_name("a toolpass-reference row marked **REGRESSION**"),
            ),
    )
    // The text moved to stderr, with the same verdict.
    .stderr(contains("REGRESSION"));
}

/// Two servers benched together take turns scenario by scenario, the
/// order rotating, so the calls a ratio pairs are never a whole round
/// apart.
pub(crate) async fn bench_interleaves_implementations_scenario_by_scenario() {
    let server = tokio::task::spawn_blocking(|| reference_server(Profile::Dev))
        .await
        .unwrap()
        .expect("cargo builds the reference server");
    let supervisors = [
        Supervisor::new(server.clone(), Options::default()),
        Supervisor::new(server, Options::default()),
    ];
    let scenarios: Vec<Scenario> = (0..3)
        .map(|n| parse_str(SUITE, &format!("s{n}")).unwrap())
        .collect();
    let config = BenchConfig {
        rounds: 2,
        warmup: 0,
        startups: 1,
        ..BenchConfig::default()
    };
    let order = std::sync::Mutex::new(Vec::new());
    let bench = toolpass::bench::bench(&supervisors, &scenarios, &config, |event| {
        if let BenchEvent::Scenario { implementation } = event {
            order.lock().unwrap().push(implementation);
        }
    })
    .await
    .unwrap();
    // Round r, scenario k: the first to run is (r + k) mod 2.
    assert_eq!(
        order.into_inner().unwrap(),
        [0, 1, 1, 0, 0, 1, /* round 2 */ 1, 0, 0, 1, 1, 0]
    );
    assert_eq!(bench.tools.len(), 3, "edit, read_file, all tools");
}
