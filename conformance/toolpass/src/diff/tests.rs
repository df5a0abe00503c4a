//! The comparison on the fixture run, written by the real JSONL writer and
//! read back, against copies of it with changes made by hand.

use std::time::Duration;

use super::*;
use crate::report::text::Style;
use crate::report::{fixture, jsonl, read};
use crate::run::Failure;

fn report(file: &str, results: &[ScenarioResult]) -> ReadReport {
    fixture::read_back(file, results)
}

fn diff(before: &[ScenarioResult], after: &[ScenarioResult]) -> Diff {
    compare(
        &report("before.jsonl", before),
        &report("after.jsonl", after),
        Thresholds::default(),
    )
}

fn get<'a>(results: &'a mut [ScenarioResult], id: &str) -> &'a mut ScenarioResult {
    results.iter_mut().find(|r| r.id == id).unwrap()
}

/// What changed, as `(kind, name)` pairs in the order listed.
fn kinds(diff: &Diff) -> Vec<(Kind, String)> {
    diff.changes.iter().map(|c| (c.kind, c.name())).collect()
}

/// The fixture with one change of each kind.
fn changed() -> Vec<ScenarioResult> {
    let mut after = fixture::results();
    let curly = get(&mut after, "edit/fuzzy/curly");
    curly.verdict = Verdict::Fail;
    curly.steps[1].verdict = Verdict::Fail;
    curly.steps[1].failures = vec![Failure::new("llm", "does not contain \"updated\"")];
    let crlf = get(&mut after, "edit/crlf");
    crlf.verdict = Verdict::Pass;
    for step in &mut crlf.steps {
        step.verdict = Verdict::Pass;
        step.failures.clear();
    }
    let crash = get(&mut after, "shell/crash");
    crash.verdict = Verdict::Timeout;
    crash.steps[0].verdict = Verdict::Timeout;
    crash.steps[0].failures = vec![Failure::new("call", "no answer within 30 s")];
    let garbage = get(&mut after, "tools/garbage");
    garbage.steps[0].failures[0].message = "line 2 is not JSON: `}`".into();
    let known = get(&mut after, "edit/known");
    known.duration = Duration::from_millis(212);
    known.steps[1].duration = Duration::from_millis(190);
    after.retain(|r| r.id != "mcp/fault");
    let mut added = after[0].clone();
    added.id = "edit/new".into();
    after.insert(1, added);
    after
}

#[test]
fn the_same_run_twice_has_no_changes() {
    let results = fixture::results();
    let diff = diff(&results, &results);
    assert_eq!(diff.changes, Vec::new());
    assert_eq!(diff.compared, 9);
    assert!(!diff.regression);
    assert!(diff.notes.is_empty(), "{:?}", diff.notes);
}

#[test]
fn every_kind_of_change_is_found_and_keyed_by_id() {
    let diff = diff(&fixture::results(), &changed());
    let name = |kind: Kind, id: &str| (kind, id.to_owned());
    assert_eq!(
        kinds(&diff),
        vec![
            name(Kind::NewlyFailing, "edit/fuzzy/curly"),
            name(Kind::NewlyPassing, "edit/crlf"),
            name(Kind::VerdictChanged, "shell/crash"),
            name(Kind::MessageChanged, "tools/garbage"),
            name(Kind::Removed, "mcp/fault"),
            name(Kind::Added, "edit/new"),
            name(Kind::Slower, "edit/known"),
        ]
    );
    assert!(diff.regression);
    assert_eq!(diff.compared, 8);
    assert_eq!(diff.counts[&Kind::Faster], 0);
    let failing = &diff.changes[0];
    assert_eq!(failing.steps.len(), 1);
    assert_eq!(failing.steps[0].index, 2);
    assert_eq!(
        failing.steps[0].after.message.as_deref(),
        Some("llm: does not contain \"updated\"")
    );
    let slower = &diff.changes[6];
    assert_eq!(slower.steps[0].index, 2, "the step that took longer");
}

#[test]
fn the_text_groups_changes_by_kind_and_ends_with_a_summary() {
    let text = render(&diff(&fixture::results(), &changed()), Style::new(false));
    let body = text.split_once("\n\n").unwrap().1;
    assert_eq!(
        body,
        "\
newly failing (1)
  edit/fuzzy/curly: pass → fail
    #2 `call read_file`: pass → fail
      + llm: does not contain \"updated\"

newly passing (1)
  edit/crlf: fail → pass
    #2 `call edit`: fail → pass
      - status: expected success, got error | edit_no_occurrence_found
    #3 `expect_files`: fail → pass
      - files[src/a.txt]: the file's bytes differ

verdict changed (1)
  shell/crash: crash → timeout
    #1 `call edit`: crash → timeout
      - call: the implementation exited (signal 11) before answering
      + call: no answer within 30 s

message changed (1)
  tools/garbage: protocol_error
    #1 `call list_directory`: protocol_error
      - call: line 1 is not JSON: `<html>` & more
      + call: line 2 is not JSON: `}`

removed (1)
  mcp/fault (skip)

added (1)
  edit/new (pass)

slower (1)
  edit/known: 12.0 ms → 212.0 ms (+200.0 ms, ×17.67)
    #2 `call edit`: 3.0 ms → 190.0 ms (+187.0 ms, ×63.33)

regression: 1 newly failing, 1 newly passing, 1 verdict changed, 1 message changed, 1 \
removed, 1 added, 1 slower; 8 scenario results compared
"
    );
    assert!(text.starts_with(
        "before before.jsonl: toolpass-reference 0.1.0, runner 0.1.0 (toolpass/1), started \
         2026-12-02T17:51:50Z, 9 results, failed in 1.23 s\n"
    ));
}

#[test]
fn a_step_newly_failing_in_a_scenario_that_already_failed_is_a_regression() {
    let before = fixture::results();
    let mut after = before.clone();
    let crlf = get(&mut after, "edit/crlf");
    crlf.steps[0].verdict = Verdict::Fail;
    crlf.steps[0].failures = vec![Failure::new("llm", "empty")];
    let diff = diff(&before, &after);
    assert_eq!(
        kinds(&diff),
        vec![(Kind::NewlyFailing, "edit/crlf".to_owned())]
    );
    assert!(diff.regression);
    let text = render(&diff, Style::new(false));
    assert!(
        text.contains(
            "  edit/crlf: fail\n    #1 `call read_file`: pass → fail\n      + llm: empty\n"
        ),
        "{text}"
    );
}

#[test]
fn a_fix_and_a_skip_are_no_regression() {
    let before = fixture::results();
    let mut after = before.clone();
    let curly = get(&mut after, "edit/fuzzy/curly");
    curly.verdict = Verdict::Skip;
    curly.reason = Some("needs prior_read".into());
    curly.steps.clear();
    get(&mut after, "edit/known").verdict = Verdict::Fail;
    let diff = diff(&after, &before);
    assert_eq!(
        kinds(&diff),
        vec![
            (Kind::NewlyPassing, "edit/fuzzy/curly".to_owned()),
            (Kind::VerdictChanged, "edit/known".to_owned()),
        ]
    );
    assert!(!diff.regression);
    assert!(summary(&diff, Style::new(false)).starts_with("no regression: 1 newly passing"));
}

#[test]
fn repetitions_are_compared_only_when_both_runs_have_them() {
    let once = fixture::results();
    let mut twice = once.clone();
    for result in &once {
        let mut again = result.clone();
        again.repetition = 2;
        again.verdict = Verdict::Crash;
        twice.push(again);
    }
    let diff_once = diff(&once, &twice);
    assert!(diff_once.changes.is_empty(), "{:?}", kinds(&diff_once));
    assert_eq!(diff_once.compared, 9);
    assert_eq!(
        diff_once.notes,
        ["only one run repeated scenarios: repetition 1 alone is compared"]
    );
    let mut twice_changed = twice.clone();
    let last = twice_changed.last_mut().unwrap();
    last.verdict = Verdict::Pass;
    let diff_twice = diff(&twice, &twice_changed);
    assert_eq!(diff_twice.compared, 18);
    assert_eq!(
        kinds(&diff_twice),
        vec![(
            Kind::NewlyPassing,
            "tools/garbage (repetition 2)".to_owned()
        )]
    );
}

#[test]
fn another_protocol_major_or_runner_is_compared_with_a_note() {
    let results = fixture::results();
    let text = fixture::render_results(&results, jsonl::render)
        .replacen("toolpass/1", "toolpass/2", 1)
        .replacen(r#""toolpass":"0.1.0""#, r#""toolpass":"0.2.0""#, 1);
    let after = read::parse("after.jsonl", &text).unwrap();
    let diff = compare(
        &report("before.jsonl", &results),
        &after,
        Thresholds::default(),
    );
    assert!(diff.changes.is_empty());
    assert_eq!(diff.notes.len(), 3, "{:?}", diff.notes);
    assert!(diff.notes[0].contains("toolpass/1 → toolpass/2"));
    assert!(diff.notes[1].starts_with("after.jsonl was written for toolpass/2"));
    assert!(diff.notes[2].contains("0.1.0 → 0.2.0"));
}

#[test]
fn timings_change_only_beyond_both_thresholds() {
    let ms = |m: f64| Duration::from_secs_f64(m / 1000.0);
    let default = Thresholds::default();
    let changed = |t: Thresholds, a: f64, b: f64| t.changed(ms(a), ms(b));
    assert!(changed(default, 10.0, 70.0));
    assert!(changed(default, 70.0, 10.0), "faster counts too");
    assert!(!changed(default, 10.0, 55.0), "45 ms is under 50");
    assert!(!changed(default, 100.0, 190.0), "under twice as long");
    assert!(changed(default, 100.0, 201.0));
    let strict = Thresholds {
        min_ms: 0.0,
        ratio: 1.5,
    };
    assert!(changed(strict, 2.0, 3.5));
    assert!(!changed(strict, 0.1, 0.9), "under a millisecond is noise");
    assert!(!changed(strict, 0.0, 1.4));
}
