//! The expected-failures semantics, one test per rule: what an entry does
//! to a result's verdict, and when the run fails (README: the expected-failures file). Results
//! are built by hand, so each rule is tested on exactly the case it names.

use std::path::Path;
use std::time::Duration;

use toolpass::expected::{ExpectedFailures, StaleCheck};
use toolpass::partition::{Partition, shard_of};
use toolpass::report::Summary;
use toolpass::run::{Failure, ScenarioResult, StepResult, Verdict};
use toolpass_scenario::Level;

fn step(index: usize, level: Level, failure: Option<&str>) -> StepResult {
    StepResult {
        index,
        line: 10 + index as u32,
        label: "call edit".into(),
        level,
        verdict: if failure.is_some() {
            Verdict::Fail
        } else {
            Verdict::Pass
        },
        failures: failure
            .map(|m| vec![Failure::new("status", m)])
            .unwrap_or_default(),
        stderr_tail: String::new(),
        duration: Duration::ZERO,
    }
}

fn result(id: &str, verdict: Verdict, steps: Vec<StepResult>) -> ScenarioResult {
    ScenarioResult {
        id: id.into(),
        path: None,
        title: "t".into(),
        spec: "s".into(),
        level: Level::Required,
        tags: vec![],
        verdict,
        reason: None,
        steps,
        repetition: 1,
        duration: Duration::ZERO,
        blessed: 0,
        observed: vec![],
        sandbox_after: None,
        kept_sandbox: None,
    }
}

fn failing(id: &str) -> ScenarioResult {
    result(
        id,
        Verdict::Fail,
        vec![
            step(1, Level::Required, None),
            step(2, Level::Required, Some("expected success, got error")),
        ],
    )
}

fn passing(id: &str) -> ScenarioResult {
    result(id, Verdict::Pass, vec![step(1, Level::Required, None)])
}

fn file(text: &str) -> ExpectedFailures {
    ExpectedFailures::parse(text, Path::new("xfail.yaml")).unwrap()
}

/// Some problem of the run contains `needle`.
fn assert_problem(summary: &Summary, needle: &str) {
    assert!(
        summary.problems.iter().any(|p| p.contains(needle)),
        "no problem contains {needle:?}: {:?}",
        summary.problems
    );
}

/// Applies `text` to `results` and says whether the run passes.
fn judge(text: &str, results: &mut [ScenarioResult], filtered: bool) -> Summary {
    let stale = if filtered {
        StaleCheck::Off
    } else {
        StaleCheck::All
    };
    let problems = file(text).apply(results, stale);
    Summary::new(results, Duration::ZERO, problems)
}

#[test]
fn an_unlisted_required_failure_fails_the_run() {
    let mut results = vec![failing("a"), passing("b")];
    let summary = judge("- b#9\n", &mut results, true);
    assert_eq!(results[0].verdict, Verdict::Fail);
    assert!(!summary.passed());
    assert_problem(&summary, "a: fail at required level");
}

#[test]
fn a_listed_failure_failing_as_listed_is_xfail_and_the_run_passes() {
    let mut results = vec![failing("a"), passing("b")];
    let summary = judge(
        "- id: a\n  message: \"status: expected success\"\n  reason: known\n",
        &mut results,
        false,
    );
    assert_eq!(results[0].verdict, Verdict::Xfail);
    assert!(summary.passed(), "{:?}", summary.problems);
    // Still a failure of its level's score.
    assert_eq!(summary.levels[&Level::Required].passed, 1);
}

#[test]
fn a_listed_entry_that_passes_is_xpass_and_fails_the_run() {
    let mut results = vec![passing("a")];
    let summary = judge("- a\n", &mut results, false);
    assert_eq!(results[0].verdict, Verdict::Xpass);
    assert!(!summary.passed());
    assert_problem(&summary, "xpass");
}

#[test]
fn a_listed_entry_failing_with_another_message_fails_the_run() {
    let mut results = vec![failing("a")];
    let summary = judge(
        "- id: a\n  message: \"error: expected error code\"\n",
        &mut results,
        false,
    );
    assert_eq!(results[0].verdict, Verdict::Fail);
    assert!(!summary.passed());
    assert_problem(&summary, "xfail.yaml:1:3: `a` fails differently");
}

#[test]
fn a_listed_entry_that_is_skipped_fails_the_run() {
    let mut results = vec![result("a", Verdict::Skip, vec![])];
    let summary = judge("- a\n", &mut results, false);
    assert_eq!(results[0].verdict, Verdict::Skip);
    assert!(!summary.passed());
    assert_problem(&summary, "`a` is listed, but the scenario was skipped");
}

#[test]
fn an_entry_naming_no_scenario_fails_an_unfiltered_run_only() {
    let mut results = vec![passing("b")];
    let summary = judge("- gone\n", &mut results, false);
    assert_problem(&summary, "`gone` names no scenario of this run");
    let mut results = vec![passing("b")];
    assert!(judge("- gone\n", &mut results, true).passed());
}

#[test]
fn a_stale_entry_fails_the_one_shard_its_id_falls_in() {
    // Each shard checks the entries of its own ids, so across the shards
    // an entry naming no scenario is reported once, as one run reports it.
    let total = 3;
    let mut stale_in = Vec::new();
    for shard in 1..=total {
        let partition = Partition::new(shard, total).unwrap();
        // The shard ran the one scenario of its ids, `b` or nothing.
        let mut results: Vec<ScenarioResult> = Some(passing("b"))
            .filter(|_| partition.takes("b"))
            .into_iter()
            .collect();
        let problems = file("- gone\n- b\n").apply(&mut results, StaleCheck::Shard(partition));
        if problems
            .iter()
            .any(|p| p.contains("`gone` names no scenario"))
        {
            stale_in.push(shard);
        }
        assert!(
            !problems.iter().any(|p| p.contains("`b` names no scenario")),
            "shard {shard}: {problems:?}"
        );
    }
    assert_eq!(stale_in, [shard_of("gone", total)]);
}

#[test]
fn step_entries_must_cover_every_failing_step() {
    let two_failures = || {
        result(
            "a",
            Verdict::Fail,
            vec![
                step(1, Level::Required, Some("x")),
                step(2, Level::Required, Some("y")),
            ],
        )
    };
    let mut results = vec![two_failures()];
    assert!(judge("- a#1\n- a#2\n", &mut results, false).passed());
    assert_eq!(results[0].verdict, Verdict::Xfail);
    let mut results = vec![two_failures()];
    assert!(!judge("- a#1\n", &mut results, false).passed());
    assert_eq!(results[0].verdict, Verdict::Fail);
}

#[test]
fn a_listed_step_that_passed_fails_the_run() {
    let mut results = vec![failing("a")];
    let summary = judge("- a#1\n- a#2\n", &mut results, false);
    assert!(!summary.passed());
    assert_problem(&summary, "`a#1` is listed, but that step passed");
}

#[test]
fn an_unlisted_recommended_failure_is_reported_but_does_not_fail_the_run() {
    let mut results = vec![result(
        "a",
        Verdict::Fail,
        vec![step(1, Level::Recommended, Some("prose"))],
    )];
    let summary = judge("[]\n", &mut results, false);
    assert!(summary.passed(), "{:?}", summary.problems);
    assert_eq!(summary.levels[&Level::Recommended].passed, 0);
}

#[test]
fn fix_writes_one_entry_per_failing_step_keeping_reasons_and_reads_back() {
    let old = file("- id: a\n  reason: tracked upstream\n  issue: \"#7\"\n- stale\n");
    let mut crashed = result("c", Verdict::Crash, vec![]);
    crashed.reason = Some("step 1 (call edit) could not complete".into());
    let results = vec![failing("a"), passing("b"), crashed];
    let text = old.fixed(&results);
    let fixed = ExpectedFailures::parse(&text, Path::new("xfail.yaml")).unwrap();
    let keys: Vec<String> = fixed.entries.iter().map(|e| e.key()).collect();
    assert_eq!(keys, ["a#2", "c"]);
    assert_eq!(
        fixed.entries[0].message.as_deref(),
        Some("status: expected success, got error")
    );
    assert_eq!(fixed.entries[0].reason.as_deref(), Some("tracked upstream"));
    assert_eq!(fixed.entries[0].issue.as_deref(), Some("#7"));
    let mut rerun = results.clone();
    let problems = fixed.apply(&mut rerun, StaleCheck::All);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(rerun[0].verdict, Verdict::Xfail);
    assert_eq!(rerun[2].verdict, Verdict::Xfail);
}

#[test]
fn fix_keeps_a_reason_when_a_scenario_turns_from_failing_steps_to_stopping_early() {
    let old = file("- id: c#1\n  reason: no such tool\n- id: c#2\n  reason: no such tool\n");
    let mut errored = result("c", Verdict::Error, vec![]);
    errored.reason = Some("could not open a session".into());
    let fixed = ExpectedFailures::parse(&old.fixed(&[errored]), Path::new("xfail.yaml")).unwrap();
    let entry = &fixed.entries[0];
    assert_eq!(
        (entry.key().as_str(), entry.reason.as_deref()),
        ("c", Some("no such tool"))
    );
}

#[test]
fn a_bad_file_is_refused_with_its_position() {
    for (text, wanted) in [
        ("- a\n- a\n", "xfail.yaml:2:3: `a` is listed twice"),
        (
            "- a#0\n",
            "xfail.yaml:1:3: `a#0`: the step after # must be a number from 1",
        ),
        (
            "- id: a\n  reson: typo\n",
            "xfail.yaml:2:3: unknown key `reson`, expected one of",
        ),
        ("a: b\n", "xfail.yaml:1:1: expected a list"),
    ] {
        let error = ExpectedFailures::parse(text, Path::new("xfail.yaml")).unwrap_err();
        assert!(error.starts_with(wanted), "{text:?}: {error}");
    }
}
