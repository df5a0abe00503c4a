//! Merging the fixture run cut into shards, each written by the real JSONL
//! writer and read back, against the fixture as one run; and every kind of
//! mismatch refused.

use std::collections::BTreeSet;
use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::partition::shard_of;
use crate::report::read::parse;
use crate::report::{Report, fixture, jsonl};

/// An expected-failures problem of no one result, as a run's footer lists it.
fn entry_problem(id: &str) -> String {
    format!("xfail.yaml:3:3: `{id}` names no scenario of this run: remove it")
}

/// The fixture's results of shard `k` of `n`, written as that shard's run
/// (with `problems` of its own and `edit` applied to its header) and read
/// back as `file`.
fn shard_with(k: u64, n: u64, problems: Vec<String>, edit: impl Fn(&mut RunInfo)) -> ReadReport {
    let results: Vec<ScenarioResult> = fixture::results()
        .into_iter()
        .filter(|r| shard_of(&r.id, n) == k)
        .collect();
    let mut info = fixture::info();
    info.config.partition = Some(format!("hash:{k}/{n}"));
    info.started = UNIX_EPOCH + Duration::from_secs(1_796_233_910 + k);
    edit(&mut info);
    let summary = Summary::new(&results, Duration::from_millis(100 * k), problems);
    let text = jsonl::render(&Report {
        info: &info,
        results: &results,
        summary: &summary,
    });
    parse(&format!("shard-{k}.jsonl"), &text).unwrap()
}

fn shard(k: u64, n: u64) -> ReadReport {
    shard_with(k, n, Vec::new(), |_| ())
}

fn refused(reports: Vec<ReadReport>) -> String {
    merge(reports).unwrap_err()
}

#[test]
fn the_shards_merged_are_the_run_they_split() {
    let one = fixture::read_back("run.jsonl", &fixture::results());
    for n in 1..=4 {
        // Given in any order, each shard with its own stale entry.
        let shards: Vec<ReadReport> = (1..=n)
            .rev()
            .map(|k| shard_with(k, n, vec![entry_problem(&format!("gone-{k}"))], |_| ()))
            .collect();
        let merged = merge(shards).unwrap();
        assert_eq!(merged.results, one.results, "{n} shards");
        let single = Summary::new(
            &one.results,
            merged.summary.duration,
            (1..=n)
                .map(|k| entry_problem(&format!("gone-{k}")))
                .collect(),
        );
        assert_eq!(merged.summary, single, "{n} shards");
        assert!(!merged.summary.passed());
        // The longest shard's time; the first shard's start; jobs summed.
        assert_eq!(merged.summary.duration, Duration::from_millis(100 * n));
        assert_eq!(
            merged.info.started,
            UNIX_EPOCH + Duration::from_secs(1_796_233_911)
        );
        assert_eq!(merged.info.config.jobs, 2 * n as usize);
        assert_eq!(merged.info.config.partition, None);
        let files: Vec<String> = (1..=n).map(|k| format!("shard-{k}.jsonl")).collect();
        assert_eq!(merged.info.config.merged, files);
    }
}

#[test]
fn a_merged_report_reads_back_as_one_run() {
    let merged = merge((1..=3).map(|k| shard(k, 3)).collect()).unwrap();
    let text = jsonl::render(&Report {
        info: &merged.info,
        results: &merged.results,
        summary: &merged.summary,
    });
    let read = parse("all.jsonl", &text).unwrap();
    assert_eq!(read.results, merged.results);
    assert_eq!(read.problems, merged.summary.problems);
    let config = read.header.settings().unwrap();
    assert_eq!(config.merged.len(), 3);
    // A merged report is no shard: merging it again is refused.
    assert!(refused(vec![read]).contains("all.jsonl is no shard"));
}

#[test]
fn shards_of_different_runs_or_a_missing_one_are_refused_naming_the_files() {
    let mut unsettled = shard(1, 2);
    unsettled.header.config = serde_json::json!({});
    let cases: Vec<(Vec<ReadReport>, &str)> = vec![
        (vec![], "no report to merge"),
        (
            vec![unsettled],
            "shard-1.jsonl: the header's `config` is not `toolpass run`'s: missing field `jobs`",
        ),
        (
            vec![shard(1, 3), shard(3, 3)],
            "shard hash:2/3 is missing (given: shard-1.jsonl (hash:1/3), shard-3.jsonl (hash:3/3))",
        ),
        (
            vec![shard(1, 2), shard(1, 2), shard(2, 2)],
            "shard-1.jsonl and shard-1.jsonl are both shard hash:1/2",
        ),
        (
            vec![shard(1, 2), shard(2, 3)],
            "shard-2.jsonl is shard hash:2/3 and shard-1.jsonl shard hash:1/2",
        ),
        (
            vec![
                shard(1, 2),
                shard_with(2, 2, Vec::new(), |i| {
                    i.implementation.version = "0.2.0".into()
                }),
            ],
            "shard-1.jsonl and shard-2.jsonl are not shards of one run: the implementations are",
        ),
        (
            vec![
                shard(1, 2),
                shard_with(2, 2, Vec::new(), |i| i.toolpass = "0.2.0".into()),
            ],
            "the runner's versions are \"0.1.0\" and \"0.2.0\"",
        ),
        (
            vec![
                shard(1, 2),
                shard_with(2, 2, Vec::new(), |i| i.config.timeout_s = 5.0),
            ],
            "the settings' `timeout_s` are \"30.0\" and \"5.0\"",
        ),
        (
            vec![
                shard(1, 2),
                shard_with(2, 2, Vec::new(), |i| {
                    i.config.expected_failures = None;
                }),
            ],
            "the settings' `expected_failures` are \"\\\"xfail.yaml\\\"\" and \"absent\"",
        ),
        (
            vec![shard_with(1, 2, Vec::new(), |i| i.config.partition = None)],
            "shard-1.jsonl is no shard: it was not run with --partition",
        ),
    ];
    for (reports, wanted) in cases {
        let error = refused(reports);
        assert!(error.contains(wanted), "{error}\nwanted: {wanted}");
    }
}

#[test]
fn jobs_may_differ_between_shards() {
    let merged = merge(vec![
        shard(1, 2),
        shard_with(2, 2, Vec::new(), |i| i.config.jobs = 7),
    ])
    .unwrap();
    assert_eq!(merged.info.config.jobs, 9);
}

#[test]
fn overlapping_shards_and_edited_footers_are_refused() {
    // Shard 1 of 2 claiming every scenario: it overlaps shard 2.
    let mut whole = fixture::read_back("shard-1.jsonl", &fixture::results());
    whole.header.config["partition"] = "hash:1/2".into();
    let foreign = whole
        .results
        .iter()
        .find(|r| shard_of(&r.id, 2) == 2)
        .map(|r| r.id.clone())
        .unwrap();
    let error = refused(vec![whole, shard(2, 2)]);
    assert!(
        error.contains(&format!(
            "shard-1.jsonl (shard hash:1/2) holds `{foreign}`, which is in shard hash:2/2: the \
             shards overlap"
        )),
        "{error}"
    );
    let mut edited = shard(1, 2);
    edited.problems.pop();
    let failing = edited.results.iter().filter_map(run_failure).count();
    assert!(failing > 0, "shard 1 has no failure to drop");
    assert!(refused(vec![edited, shard(2, 2)]).contains("the footer's problems do not end"));
}

#[test]
fn every_fixture_scenario_lands_in_some_shard_of_the_tests() {
    // The cases above mean something only if both shards of 2 hold results.
    let shards: BTreeSet<u64> = fixture::results()
        .iter()
        .map(|r| shard_of(&r.id, 2))
        .collect();
    assert_eq!(shards, BTreeSet::from([1, 2]));
}
