//! What the human reports say about a run, checked on exact strings: the
//! counts in the number they take, the level a failure counts at, skips
//! grouped by cause, and repeated runs of one scenario.

use std::time::Duration;

use toolpass_scenario::Level;

use super::fixture::{self, scenario, step};
use super::text::{self, Style};
use super::{Summary, markdown};
use crate::run::skip::Skip;
use crate::run::{Failure, ScenarioResult, Verdict};

fn plain() -> Style {
    Style::new(false)
}

fn summary_text(results: &[ScenarioResult]) -> String {
    text::summary(
        &Summary::new(results, Duration::from_millis(1500), Vec::new()),
        plain(),
    )
}

fn passing(id: &str) -> ScenarioResult {
    scenario(id, Level::Required, Verdict::Pass, Vec::new())
}

fn skipped(id: &str, skip: &Skip) -> ScenarioResult {
    let mut result = scenario(id, Level::Required, Verdict::Skip, Vec::new());
    result.reason = Some(skip.to_string());
    result
}

fn failing(id: &str, repetition: u32, message: &str) -> ScenarioResult {
    let failure = Failure::new("llm", message);
    let mut result = scenario(
        id,
        Level::Required,
        Verdict::Fail,
        vec![step(1, 4, "call read_file", Verdict::Fail, vec![failure])],
    );
    result.repetition = repetition;
    result
}

#[test]
fn one_scenario_is_counted_in_the_singular() {
    assert_eq!(
        summary_text(&[passing("a")]),
        "required 1/1\n1 scenario: 1 pass in 1.50 s\nok\n"
    );
    assert_eq!(text::counted(0, "file", "files"), "0 files");
    assert_eq!(text::counted(2, "file", "files"), "2 files");
}

#[test]
fn a_failure_header_names_the_failing_steps_level_not_the_scenarios() {
    let mut recommended = step(
        2,
        9,
        "call edit",
        Verdict::Fail,
        vec![Failure::new("llm", "x")],
    );
    recommended.level = Level::Recommended;
    let result = scenario(
        "read/directory",
        Level::Required,
        Verdict::Fail,
        vec![
            step(1, 5, "call read_file", Verdict::Pass, Vec::new()),
            recommended,
        ],
    );
    let block = text::scenario(&result, plain());
    assert!(
        block.starts_with("FAIL read/directory (recommended) scenarios/read/directory.yaml\n"),
        "{block}"
    );
}

#[test]
fn skips_are_grouped_by_cause_in_the_text_and_markdown_summaries() {
    let undeclared = Skip::Undeclared(vec!["grep_search".into(), "glob".into()]);
    let stat = Skip::Unadvertised(vec!["fault:fs.stat".into()]);
    let results = vec![
        passing("a"),
        skipped("b", &undeclared),
        skipped("c", &stat),
        skipped("d", &undeclared),
    ];
    let out = summary_text(&results);
    assert!(
        out.contains(
            "4 scenarios: 1 pass, 3 skip in 1.50 s\nskipped: 2 call tools the implementation \
             does not declare: glob, grep_search; 1 needs fault:fs.stat\n"
        ),
        "{out}"
    );
    let md = fixture::render_results(&results, markdown::render);
    assert!(
        md.contains(
            "**Skipped**\n\n- 2 call tools the implementation does not declare: glob, \
             grep\\_search\n- 1 needs fault:fs.stat\n"
        ),
        "{md}"
    );
}

#[test]
fn repeated_runs_are_counted_as_scenarios_times_runs() {
    let mut results = Vec::new();
    for id in ["a", "b"] {
        for repetition in 1..=3 {
            let mut result = passing(id);
            result.repetition = repetition;
            results.push(result);
        }
    }
    let out = summary_text(&results);
    assert!(out.contains("\n2 scenarios × 3 runs: 6 pass in "), "{out}");
    let md = fixture::render_results(&results, markdown::render);
    assert!(
        md.contains("\n2 scenarios × 3 runs in 1.23 s against "),
        "{md}"
    );
}

#[test]
fn runs_that_failed_alike_are_one_block_saying_in_how_many() {
    let mut second = passing("a");
    second.repetition = 2;
    let results = [failing("a", 1, "same"), second, failing("a", 3, "same")];
    let out = text::scenarios(&results, plain());
    assert_eq!(
        out.matches("FAIL a ").count(),
        1,
        "one block for two alike failures:\n{out}"
    );
    assert!(
        out.starts_with("FAIL a (required) scenarios/a.yaml — in 2 of 3 runs\n"),
        "{out}"
    );
}

#[test]
fn runs_that_failed_differently_each_say_their_run_number() {
    let results = [
        failing("a", 1, "one way"),
        failing("a", 2, "another way"),
        failing("a", 3, "one way"),
    ];
    let out = text::scenarios(&results, plain());
    let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(
        headers,
        [
            "FAIL a (required) scenarios/a.yaml — runs 1, 3 of 3",
            "FAIL a (required) scenarios/a.yaml — run 2 of 3",
        ]
    );
    // A single run keeps the plain header.
    let single = text::scenarios(&[failing("b", 1, "x")], plain());
    assert!(
        single.starts_with("FAIL b (required) scenarios/b.yaml\n"),
        "{single}"
    );
}
