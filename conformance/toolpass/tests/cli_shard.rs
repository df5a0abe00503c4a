//! Sharding as CI uses it: `--partition hash:K/N` splits the built-in suite
//! into shards that are disjoint and add up to it, with or without other
//! filters; and `toolpass merge` of the shards' reports is the unsharded
//! run: the same verdicts, tallies, problems and exit code.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;

use common::{code, stdout, toolpass, write};

/// How many shards the end-to-end tests cut a run into.
const SHARDS: u64 = 3;

/// The ids `toolpass list` prints with `args`.
fn listed(args: &[&str]) -> Vec<String> {
    stdout(&toolpass(Path::new("."), args).success())
        .lines()
        .map(|line| line.split("  ").next().unwrap_or(line).to_owned())
        .collect()
}

#[test]
fn shards_of_the_suite_are_disjoint_and_add_up_to_it_for_any_count() {
    for filter in [None, Some("edit/**")] {
        let mut base = vec!["list"];
        base.extend(filter.iter().flat_map(|glob| ["--filter", glob]));
        let suite: BTreeSet<String> = listed(&base).into_iter().collect();
        assert!(suite.len() > 20, "{base:?} lists {} scenarios", suite.len());
        for total in [1, 2, 3, 7] {
            let mut union = BTreeSet::new();
            for shard in 1..=total {
                let partition = format!("hash:{shard}/{total}");
                let mut args = base.clone();
                args.extend(["--partition", &partition]);
                let ids = listed(&args);
                for id in ids {
                    assert!(
                        suite.contains(&id),
                        "{partition} lists {id}, not in {base:?}"
                    );
                    assert!(union.insert(id.clone()), "{id} is in two shards of {total}");
                }
            }
            assert_eq!(union, suite, "the {total} shards of {base:?}");
        }
    }
}

#[test]
fn a_partition_that_is_no_shard_is_refused_naming_the_syntax() {
    for (bad, wanted) in [
        ("hash:0/3", "the shard must be from 1 to 3"),
        ("count:1/2", "a partition is `hash:K/N`"),
    ] {
        toolpass(Path::new("."), &["list", "--partition", bad])
            .code(2)
            .stderr(contains(wanted));
    }
}

/// A scenario whose edit expects `status` (`success` passes, `error` fails).
fn edit_expecting(status: &str) -> String {
    format!(
        "title: An edit expecting {status}\nspec: edit.match.exact\nfiles:\n  a.txt: \"one\\n\"\n\
         steps:\n  - call: read_file\n    args: {{file_path: \"{{root}}/a.txt\"}}\n  \
         - call: edit\n    args: {{file_path: \"{{root}}/a.txt\", old_string: one, new_string: \"1\"}}\n    \
         expect: {{status: {status}}}\n"
    )
}

/// What a run came to: its exit code, each result's verdict, and the
/// footer's tallies and problems (sorted: shards list theirs in shard
/// order), read from its `--jsonl` report; and the JUnit test cases and
/// failures.
#[derive(Debug, PartialEq)]
struct Outcome {
    code: Option<i32>,
    verdicts: BTreeSet<(String, u64, String)>,
    footer: Value,
    problems: Vec<String>,
    junit: (usize, usize),
}

fn outcome(dir: &Path, code: Option<i32>, name: &str) -> Outcome {
    let jsonl = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).unwrap();
    let lines: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let verdicts = lines
        .iter()
        .filter(|l| l["type"] == "scenario")
        .map(|l| {
            let text = |key: &str| l[key].as_str().unwrap().to_owned();
            (
                text("id"),
                l["repetition"].as_u64().unwrap(),
                text("verdict"),
            )
        })
        .collect();
    let mut footer = lines.last().unwrap().clone();
    let object = footer.as_object_mut().unwrap();
    object.remove("duration_ms");
    let mut problems: Vec<String> =
        serde_json::from_value(object.remove("problems").unwrap()).unwrap();
    problems.sort();
    let junit = std::fs::read_to_string(dir.join(format!("{name}.xml"))).unwrap();
    Outcome {
        code,
        verdicts,
        footer,
        problems,
        junit: (
            junit.matches("<testcase").count(),
            junit.matches("<failure").count(),
        ),
    }
}

/// Runs `args` once whole and once as [`SHARDS`] shards merged, in `dir`;
/// both outcomes, and the merge's stdout.
fn whole_and_merged(dir: &Path, args: &[&str]) -> (Outcome, Outcome, String) {
    let run = |name: &str, more: &[&str]| {
        let (jsonl, junit) = (format!("{name}.jsonl"), format!("{name}.xml"));
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        all.extend_from_slice(more);
        all.extend(["--jsonl", &jsonl, "--junit", &junit]);
        code(&toolpass(dir, &all).code(predicate::in_iter([0, 1])))
    };
    let whole = run("whole", &[]);
    let mut files = Vec::new();
    for k in 1..=SHARDS {
        let partition = format!("hash:{k}/{SHARDS}");
        let name = format!("shard-{k}");
        // A shard's own exit code counts only its part; the merge's is the run's.
        run(&name, &["--partition", &partition]);
        files.push(format!("{name}.jsonl"));
    }
    let mut merge = vec!["merge"];
    // In reverse: the order of the files does not matter.
    merge.extend(files.iter().rev().map(String::as_str));
    merge.extend([
        "--jsonl",
        "merged.jsonl",
        "--junit",
        "merged.xml",
        "--markdown",
        "merged.md",
    ]);
    let merged = toolpass(dir, &merge).code(predicate::in_iter([0, 1]));
    assert!(dir.join("merged.md").is_file());
    (
        outcome(dir, whole, "whole"),
        outcome(dir, code(&merged), "merged"),
        stdout(&merged),
    )
}

#[test]
fn the_built_in_edits_in_shards_merged_are_the_run_unsharded() {
    // The edit scenarios, not the whole suite: the merge works result by
    // result, and the whole suite run twice in a debug build cost this test
    // minutes of a 2-core CI machine.
    let dir = tempfile::tempdir().unwrap();
    let (whole, merged, stdout) = whole_and_merged(dir.path(), &["--filter", "edit/**"]);
    assert_eq!(whole.code, Some(0), "{whole:?}");
    assert!(
        whole.verdicts.len() > 100,
        "{} results",
        whole.verdicts.len()
    );
    assert_eq!(merged, whole);
    assert!(stdout.contains("profile full: "), "{stdout}");
}

#[test]
fn a_failing_run_with_expected_failures_merges_to_the_same_problems_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = (0..9)
        .map(|n| (format!("s/ok-{n}.yaml"), edit_expecting("success")))
        .collect();
    files.extend((0..3).map(|n| (format!("s/bad-{n}.yaml"), edit_expecting("error"))));
    // bad-0 fails as listed (xfail), bad-1 differently, bad-2 unlisted, and
    // no scenario is `gone`: each problem comes from one shard only.
    files.push((
        "xfail.yaml".into(),
        "- bad-0\n- {id: bad-1, message: \"nothing like it\"}\n- gone\n".into(),
    ));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write(dir.path(), &files);
    let (whole, merged, stdout) = whole_and_merged(
        dir.path(),
        &["--scenarios", "s", "--expected-failures", "xfail.yaml"],
    );
    assert_eq!(whole.code, Some(1), "{whole:?}");
    for wanted in [
        "`gone` names no scenario",
        "`bad-1` fails differently",
        "bad-2: fail at required level",
    ] {
        assert!(
            whole.problems.iter().any(|p| p.contains(wanted)),
            "{wanted}: {whole:?}"
        );
    }
    assert!(
        whole
            .verdicts
            .contains(&("bad-0".into(), 1, "xfail".into())),
        "{whole:?}"
    );
    assert_eq!(merged, whole);
    assert!(stdout.contains("bad-2"), "{stdout}");
}

#[test]
fn an_empty_shard_still_reports_so_the_merge_has_every_shard() {
    // One scenario in three shards: two shards hold nothing, and pass.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("s/only.yaml", &edit_expecting("success"))]);
    let (whole, merged, _) = whole_and_merged(dir.path(), &["--scenarios", "s"]);
    assert_eq!(whole.code, Some(0), "{whole:?}");
    assert_eq!(whole.verdicts.len(), 1);
    assert_eq!(merged, whole);
    // A filter that selects nothing is still an error, shard or not.
    toolpass(
        dir.path(),
        &[
            "run",
            "--scenarios",
            "s",
            "--filter",
            "nope",
            "--partition",
            "hash:1/3",
        ],
    )
    .code(2)
    .stderr(contains("nothing to run: no scenario matches"));
}
