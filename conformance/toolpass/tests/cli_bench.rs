//! `toolpass bench` as a user runs it: two implementations (the dev
//! reference, once by name and once by command line) on a small suite,
//! text on stdout and JSON beside it. Times are not asserted: the
//! machines are shared and noisy; shapes and counts are.

mod common;

use predicates::prelude::*;
use predicates::str::{contains, ends_with};

use common::{server, stderr, toolpass, write};

const SUITE: &str = "title: read then edit\nspec: edit.match.exact\nfiles: {a.txt: \"one\\n\"}\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/a.txt\"}\n  - call: edit\n    args: {file_path: \"{root}/a.txt\", old_string: one, new_string: \"1\"}\n";

#[test]
fn bench_times_each_tool_for_each_implementation_with_ratios_to_the_first() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("s/a.yaml", SUITE), ("s/b.yaml", SUITE)]);
    let second = format!("'{}'", server());
    let run = toolpass(
        dir.path(),
        &[
            "bench",
            "--scenarios",
            "s",
            "--impl",
            "reference",
            "--impl",
            &second,
            "--rounds",
            "2",
            "--warmup",
            "1",
            "--startups",
            "2",
            "--json",
            "b.json",
        ],
    )
    .success()
    .stdout(contains("2 rounds after 1 warm-up").and(contains(
        "on the scenario steps both called and both passed",
    )));
    // Not a terminal: a line per round, as it ends.
    let err = stderr(&run);
    let rounds: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("toolpass bench: round "))
        .collect();
    assert_eq!(rounds.len(), 3, "{err}");
    assert!(
        rounds[0].starts_with(
            "toolpass bench: round 1/3 (warm-up): 2 scenarios × 2 implementations in "
        ),
        "{err}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("b.json")).unwrap()).unwrap();
    assert_eq!(json["implementations"].as_array().unwrap().len(), 2);
    assert_eq!(json["implementations"][0]["name"], "toolpass-reference");
    assert_eq!(json["implementations"][0]["startup"]["count"], 2);
    let tools: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["edit", "read_file", "all tools"]);
    // Two scenarios × two counted rounds: four calls of each tool each.
    let read = &json["tools"][1]["cells"];
    assert_eq!(read[0]["stats"]["count"], 4);
    assert_eq!(read[1]["stats"]["count"], 4);
    assert_eq!(read[0]["ratio"], 1.0);
    assert!(read[1]["ratio"].as_f64().unwrap() > 0.0);
}

#[test]
fn bench_refuses_an_empty_selection_and_a_bad_spread_limit() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("s/a.yaml", SUITE)]);
    toolpass(
        dir.path(),
        &["bench", "--scenarios", "s", "--filter", "nope"],
    )
    .code(2)
    .stderr(contains("nothing to time"));
    toolpass(
        dir.path(),
        &["bench", "--scenarios", "s", "--spread-limit", "0"],
    )
    .code(2)
    .stderr(contains("--spread-limit"));
}

#[test]
fn bench_with_an_implementation_dying_at_start_shows_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("s/a.yaml", SUITE)]);
    toolpass(
        dir.path(),
        &[
            "bench",
            "--scenarios",
            "s",
            "--impl",
            "sh -c 'echo adapter not set up >&2; exit 1'",
        ],
    )
    .code(2)
    .stderr(contains("stderr (tail):\n  | adapter not set up\n"));
}

#[test]
fn bench_saves_a_baseline_and_compares_the_reference_against_itself() {
    let dir = tempfile::tempdir().unwrap();
    // Ten scenarios: each tool called ten times a round, the fewest a
    // figure needs to be judged.
    let files: Vec<(String, &str)> = (0..10).map(|n| (format!("s/{n}.yaml"), SUITE)).collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, s)| (p.as_str(), *s)).collect();
    write(dir.path(), &files);
    let short = ["--rounds", "2", "--warmup", "1", "--startups", "1"];
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "--scenarios", "s", "--impl", "reference"];
        args.extend(short);
        args.extend(extra);
        toolpass(dir.path(), &args)
    };
    bench(&["--save-baseline", "base.json"])
        .success()
        .stdout(contains("\nsaved the baseline base.json\n"));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("base.json")).unwrap())
            .unwrap();
    assert_eq!(
        (saved["format"].as_str(), saved["version"].as_u64()),
        (Some("toolpass-bench-baseline"), Some(1))
    );
    // One --impl: the reference was put first as the control.
    let control = &saved["implementations"][0];
    assert_eq!(control["name"], "toolpass-reference");
    assert_eq!(control["tools"][0]["ratio"]["ratio"], 1.0);
    assert_eq!(saved["implementations"][1]["tools"][0]["calls"], 20);

    // A limit no noise reaches: this checks the flow, not the machine.
    bench(&[
        "--baseline",
        "base.json",
        "--max-regression",
        "1000%",
        "--json",
        "now.json",
    ])
    .success()
    .stdout(
        contains("\nagainst the baseline base.json: ").and(ends_with("\n0 regressions, 3 pass\n")),
    );
    let now: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("now.json")).unwrap())
            .unwrap();
    let rows = now["comparison"]["rows"].as_array().unwrap();
    let tools: Vec<&str> = rows.iter().map(|r| r["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["edit", "read_file", "all tools"]);
    assert!(rows.iter().all(|r| r["verdict"] == "pass"), "{rows:?}");
    assert_eq!(now["comparison"]["max_regression"], 10.0);
}

#[test]
fn bench_refuses_a_bad_baseline_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("s/a.yaml", SUITE),
            (
                "old.json",
                "{\"format\": \"toolpass-bench-baseline\", \"version\": 0}",
            ),
        ],
    );
    let cases: [(&[&str], &str); 3] = [
        (
            &["--baseline", "old.json"],
            "old.json: baseline version 0, but this toolpass reads version 1",
        ),
        (
            &["--baseline", "old.json", "--max-regression", "lots"],
            "\"lots\" is not a positive percentage, such as 25%",
        ),
        (
            &["--save-baseline", "b.json", "--rounds", "1"],
            "need --rounds 2 or more",
        ),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["bench", "--scenarios", "s"];
        args.extend(extra);
        toolpass(dir.path(), &args)
            .code(2)
            .stderr(contains(expected));
    }
}
