//! Hand-made results with every verdict, for the renderers' tests: each
//! report is checked on the same run, without starting an implementation.

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use toolpass_scenario::Level;

use super::{Filters, ImplementationInfo, Report, RunInfo, Settings, Summary};
use crate::run::{Failure, ScenarioResult, StepResult, Verdict};

/// The run the fixture results came from.
pub(crate) fn info() -> RunInfo {
    RunInfo {
        toolpass: "0.1.0".into(),
        implementation: ImplementationInfo {
            name: "toolpass-reference".into(),
            version: "0.1.0".into(),
            command: "/opt/toolpass-server --stdio".into(),
            description: None,
        },
        started: UNIX_EPOCH + Duration::from_secs(1_796_233_910),
        config: Settings {
            jobs: 2,
            timeout_s: 30.0,
            repeat: 1,
            isolate: false,
            filters: Filters {
                tag: vec!["edit".into()],
                ..Filters::default()
            },
            expected_failures: Some("xfail.yaml".into()),
            bless: false,
            partition: None,
            merged: Vec::new(),
        },
    }
}

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

pub(crate) fn step(
    index: usize,
    line: u32,
    label: &str,
    verdict: Verdict,
    failures: Vec<Failure>,
) -> StepResult {
    StepResult {
        index,
        line,
        label: label.into(),
        level: Level::Required,
        verdict,
        failures,
        stderr_tail: String::new(),
        duration: ms(3),
    }
}

pub(crate) fn scenario(
    id: &str,
    level: Level,
    verdict: Verdict,
    steps: Vec<StepResult>,
) -> ScenarioResult {
    ScenarioResult {
        id: id.into(),
        path: Some(PathBuf::from(format!("scenarios/{id}.yaml"))),
        title: format!("The {id} scenario"),
        spec: "edit.match".into(),
        level,
        tags: vec!["edit".into()],
        verdict,
        reason: None,
        steps: steps
            .into_iter()
            .map(|mut step| {
                // Steps are scored at their scenario's level unless they say
                // otherwise (the xfail's recommended step does).
                step.level = step.level.max(level);
                step
            })
            .collect(),
        repetition: 1,
        duration: ms(12),
        blessed: 0,
        observed: Vec::new(),
        sandbox_after: None,
        kept_sandbox: None,
    }
}

fn passing(index: usize, line: u32) -> StepResult {
    step(index, line, "call read_file", Verdict::Pass, Vec::new())
}

/// One result per verdict, sorted by id as a run returns them.
pub(crate) fn results() -> Vec<ScenarioResult> {
    let crlf = Failure::diff(
        "files[src/a.txt]",
        "the file's bytes differ",
        "one\r\ntwo\r\n",
        "one\r\ntwo\n",
    );
    let status = Failure::new(
        "status",
        "expected success, got error | edit_no_occurrence_found",
    );
    let mut recommended = step(
        2,
        14,
        "call edit",
        Verdict::Fail,
        vec![Failure::with_actual(
            "llm",
            "contains: does not contain \"updated\"",
            "The file {root}/src/a.txt was\nleft as it was.\r\n",
        )],
    );
    recommended.level = Level::Recommended;
    let mut hang = step(
        2,
        9,
        "call run_shell_command",
        Verdict::Timeout,
        vec![Failure::new("call", "no answer within 30 s")],
    );
    hang.stderr_tail = "waiting for the child\n".into();
    let mut crash = step(
        1,
        7,
        "call edit",
        Verdict::Crash,
        vec![Failure::new(
            "call",
            "the implementation exited (signal 11) before answering",
        )],
    );
    crash.stderr_tail =
        "\u{1b}[31mpanicked\u{1b}[0m at src/edit.rs:10: <index> & \"bounds\"\n".into();
    let garbage = step(
        1,
        6,
        "call list_directory",
        Verdict::ProtocolError,
        vec![Failure::new(
            "call",
            "line 1 is not JSON: `<html>` & more\nsecond line",
        )],
    );
    let mut results = vec![
        scenario(
            "edit/crlf",
            Level::Required,
            Verdict::Fail,
            vec![
                passing(1, 8),
                step(2, 12, "call edit", Verdict::Fail, vec![status]),
                step(3, 20, "expect_files", Verdict::Fail, vec![crlf]),
            ],
        ),
        scenario(
            "edit/fuzzy/curly",
            Level::Required,
            Verdict::Pass,
            vec![passing(1, 8), passing(2, 10)],
        ),
        scenario(
            "edit/known",
            Level::Recommended,
            Verdict::Xfail,
            vec![passing(1, 8), recommended],
        ),
        scenario(
            "grep/listed",
            Level::Optional,
            Verdict::Xpass,
            vec![passing(1, 5)],
        ),
        scenario("mcp/fault", Level::Required, Verdict::Skip, Vec::new()),
        scenario("read/sandbox", Level::Required, Verdict::Error, Vec::new()),
        scenario("shell/crash", Level::Required, Verdict::Crash, vec![crash]),
        scenario(
            "shell/hang",
            Level::Recommended,
            Verdict::Timeout,
            vec![passing(1, 5), hang],
        ),
        scenario(
            "tools/garbage",
            Level::Optional,
            Verdict::ProtocolError,
            vec![garbage],
        ),
    ];
    for result in &mut results {
        result.reason = match result.verdict {
            Verdict::Skip => {
                Some("needs fault:fs.stat, which the implementation does not advertise".into())
            }
            Verdict::Error => {
                Some("could not create a sandbox: No space left on device (os error 28)".into())
            }
            Verdict::Crash => Some("the implementation crashed; restarted".into()),
            _ => None,
        };
    }
    results
}

/// The summary of [`results`].
pub(crate) fn summary(results: &[ScenarioResult]) -> Summary {
    Summary::new(results, ms(1234), Vec::new())
}

/// Renders the fixture run with `render`.
pub(crate) fn render(render: impl Fn(&Report<'_>) -> String) -> String {
    render_results(&results(), render)
}

/// Renders a run of `results` with `render`.
pub(crate) fn render_results(
    results: &[ScenarioResult],
    render: impl Fn(&Report<'_>) -> String,
) -> String {
    let info = info();
    let summary = summary(results);
    render(&Report {
        info: &info,
        results,
        summary: &summary,
    })
}

/// `results` written by the real `--jsonl` writer and read back, as from
/// `file`.
pub(crate) fn read_back(file: &str, results: &[ScenarioResult]) -> super::read::ReadReport {
    let text = render_results(results, super::jsonl::render);
    super::read::parse(file, &text).expect("the JSONL writer's output reads back")
}

#[test]
fn the_fixture_has_every_verdict() {
    let verdicts: Vec<Verdict> = results().iter().map(|r| r.verdict).collect();
    for verdict in Verdict::ALL {
        assert!(verdicts.contains(&verdict), "no {verdict:?}");
    }
}
