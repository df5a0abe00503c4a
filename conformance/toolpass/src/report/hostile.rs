//! Every human-facing report on a run whose implementation calls itself by
//! a name full of terminal escapes, answers with them and prints them on
//! stderr: none reaches the reader as a control character (OSC 52 would set
//! the clipboard, `ESC [2J` clear the screen). The JSONL report keeps them,
//! JSON-escaped: it is data, read back by `diff` and `matrix`, whose own
//! renderers are checked here on it.

use super::fixture;
use super::read::ReadReport;
use super::text::{self, Style};
use super::{Report, Summary, jsonl, junit, markdown};
use crate::bench::{self, Bench, Stats, Timed, ToolRow};
use crate::diff::{self, Thresholds};
use crate::matrix::{self, Matrix};
use crate::run::ScenarioResult;

/// OSC 52 (write the clipboard), then clear the screen, a C1 CSI and DEL.
const EVIL: &str = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\u{9b}31m\x7f";

/// The fixture run with `EVIL` in every text an implementation or a
/// scenario file controls.
fn results() -> Vec<ScenarioResult> {
    let mut results = fixture::results();
    for result in &mut results {
        result.id = format!("{}{EVIL}", result.id);
        result.title = format!("title {EVIL}");
        result.reason = result.reason.take().map(|r| format!("{r} {EVIL}\nnext"));
        for step in &mut result.steps {
            step.label = format!("call {EVIL}");
            step.stderr_tail = format!("panic {EVIL}\nline two {EVIL}\n");
            for failure in &mut step.failures {
                failure.what = format!("llm {EVIL}");
                failure.message = format!("got {EVIL}");
                failure.expected = Some(format!("want {EVIL}\n"));
                failure.actual = Some(format!("got {EVIL}\n"));
            }
        }
    }
    results
}

fn report_of(results: &[ScenarioResult], render: impl Fn(&Report<'_>) -> String) -> String {
    let mut info = fixture::info();
    info.implementation.name = format!("evil{EVIL}");
    info.implementation.version = format!("1{EVIL}");
    let summary = Summary::new(results, std::time::Duration::ZERO, vec![format!("{EVIL}")]);
    render(&Report {
        info: &info,
        results,
        summary: &summary,
    })
}

fn read_back(file: &str, results: &[ScenarioResult]) -> ReadReport {
    let text = report_of(results, jsonl::render);
    assert!(text.contains("\\u001b]52"), "JSONL keeps the data, escaped");
    super::read::parse(file, &text).expect("the JSONL writer's output reads back")
}

/// Fails naming `what` when `out` holds a control character other than a
/// line break or a tab.
fn assert_inert(what: &str, out: &str) {
    let bad: Vec<char> = out
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\t'))
        .collect();
    assert!(bad.is_empty(), "{what} passes {bad:?} through:\n{out}");
    assert!(
        out.contains("\\u{001b}]52"),
        "{what} shows the escape:\n{out}"
    );
}

#[test]
fn no_report_passes_an_implementations_control_characters_through() {
    let results = results();
    let plain = Style::new(false);
    let text_report = report_of(&results, |report| {
        let mut out: String = report
            .results
            .iter()
            .map(|r| text::scenario(r, plain))
            .collect();
        out.push_str(&text::summary(report.summary, plain));
        out
    });
    assert_inert("the text report", &text_report);
    assert_inert("markdown", &report_of(&results, markdown::render));
    assert_inert("junit", &report_of(&results, junit::render));

    let before = read_back("before.jsonl", &fixture::results());
    let after = read_back(&format!("after{EVIL}.jsonl"), &results);
    let compared = diff::compare(&before, &after, Thresholds::default());
    assert_inert("diff", &diff::render(&compared, plain));

    let matrix = Matrix::new(&[before, after]);
    assert_inert("matrix html", &matrix::html::render(&matrix));
    assert_inert("matrix markdown", &matrix::markdown::render(&matrix));

    let timed = Timed {
        name: format!("evil{EVIL}"),
        version: EVIL.into(),
        command: "x".into(),
        startup: Stats::of(&[std::time::Duration::from_millis(1)]),
        startup_ratio: 1.0,
    };
    let bench = Bench {
        rounds: 1,
        warmup: 0,
        implementations: vec![timed.clone(), timed],
        tools: vec![ToolRow {
            tool: format!("read{EVIL}"),
            cells: vec![None],
        }],
        warnings: vec![format!("unstable {EVIL}")],
    };
    assert_inert("bench", &bench::render::text(&bench));
}

#[test]
fn with_colours_the_only_escapes_are_the_runners_own() {
    let results = results();
    let colour = Style::new(true);
    let out: String = results.iter().map(|r| text::scenario(r, colour)).collect();
    assert!(!out.contains("\x1b]"), "{out}");
    assert!(!out.contains("\x1b[2J"), "{out}");
    assert!(!out.contains(['\x07', '\u{9b}', '\x7f']), "{out}");
    assert!(out.contains("\x1b[1m"), "colours are still there: {out}");
}

#[test]
fn printable_escapes_every_control_but_line_breaks_and_tabs_where_allowed() {
    assert_eq!(
        text::printable("a\tb\nc\x1b[2J\u{85}\x7f"),
        "a\tb\nc\\u{001b}[2J\\u{0085}\\u{007f}"
    );
    assert_eq!(text::printable_line("a\tb\nc"), "a\\u{0009}b\\u{000a}c");
    assert_eq!(text::printable("plain ünïcode ✓"), "plain ünïcode ✓");
}
