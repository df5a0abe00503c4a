//! `--jsonl`: the report for tools. One JSON object per line: a `header`,
//! then per scenario result one `step` line per step followed by one
//! `scenario` line, and a `footer` with the tallies. Keys come in the order
//! the types declare them, `type` first.
//!
//! The lines are their own types, so the format is a contract of its own:
//! its JSON Schema ([`schema`]) is generated from them and committed as
//! `schema/report.jsonl.json`, and a test fails when the two drift.

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;
use toolpass_protocol::PROTOCOL_VERSION;
use toolpass_scenario::Level;

use super::{ImplementationInfo, Report, Score, Settings, rfc3339, text};
use crate::run::{Failure, ScenarioResult, StepResult, Verdict};

/// One line of the report.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line<'a> {
    /// The first line: what ran against what.
    Header(Header<'a>),
    /// One step of one scenario result, before that result's `scenario`
    /// line.
    Step(StepLine<'a>),
    /// One scenario result, after its steps.
    Scenario(ScenarioLine<'a>),
    /// The last line: the tallies.
    Footer(Footer<'a>),
}

/// What ran against what, and how.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Header<'a> {
    /// The runner's version.
    pub toolpass: &'a str,
    /// The protocol the runner speaks (`toolpass/1`).
    pub protocol: &'a str,
    /// The implementation under test.
    pub implementation: &'a ImplementationInfo,
    /// When the scenarios started running, RFC 3339 in UTC.
    pub started: String,
    /// The settings of the run.
    pub config: &'a Settings,
}

/// One step as it ran.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StepLine<'a> {
    /// The id of its scenario.
    pub scenario: &'a str,
    /// Which run of the scenario, from 1 (`--repeat`).
    pub repetition: u32,
    /// Its number in the scenario, from 1.
    pub index: usize,
    /// The line of the scenario file it starts on.
    pub line: u32,
    /// Its kind and subject, e.g. `call edit`.
    pub label: &'a str,
    /// The level its expectations are scored at.
    pub level: Level,
    /// How it ended.
    pub verdict: Verdict,
    /// Why it did not pass; empty when it did.
    pub failures: &'a [Failure],
    /// The implementation's stderr tail after a crash, timeout or protocol
    /// error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<&'a str>,
    /// Wall time in milliseconds.
    pub duration_ms: f64,
}

/// One scenario result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ScenarioLine<'a> {
    /// Its id.
    pub id: &'a str,
    /// The file it was loaded from, relative to the current directory
    /// when under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its title.
    pub title: &'a str,
    /// Its `spec`.
    pub spec: &'a str,
    /// Its level.
    pub level: Level,
    /// Its tags.
    pub tags: &'a [String],
    /// How it ended, all steps considered.
    pub verdict: Verdict,
    /// Why it was skipped or could not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// Which run of the scenario, from 1 (`--repeat`).
    pub repetition: u32,
    /// Wall time in milliseconds, sandbox included.
    pub duration_ms: f64,
}

/// What the run adds up to.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Footer<'a> {
    /// Whether the run passed (the runner exits 0).
    pub passed: bool,
    /// Scenario results in all (repetitions count once each).
    pub scenarios: usize,
    /// Scenario results per verdict, every verdict present.
    #[schemars(schema_with = "verdict_counts")]
    pub verdicts: BTreeMap<Verdict, usize>,
    /// Each level's score; levels no scenario reached are absent.
    pub levels: &'a BTreeMap<Level, Score>,
    /// Pending scenarios (run, not scored).
    pub pending: usize,
    /// Why the run fails, one line each; empty when it passes.
    pub problems: &'a [String],
    /// Wall time of the whole run in milliseconds.
    pub duration_ms: f64,
}

/// The schema of [`Footer::verdicts`]: a count for each verdict, all of
/// them present, in the order of [`Verdict::ALL`].
fn verdict_counts(generator: &mut SchemaGenerator) -> Schema {
    let count = generator.subschema_for::<usize>().to_value();
    let names: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
    let properties: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| ((*name).to_owned(), count.clone()))
        .collect();
    json_schema!({
        "type": "object",
        "properties": properties,
        "required": names,
        "additionalProperties": false,
    })
}

/// The report: one JSON object per line, each line ending in `\n`.
pub fn render(report: &Report<'_>) -> String {
    let mut out = String::new();
    let mut push = |line: Line<'_>| {
        // Plain structs with string keys always serialize.
        if let Ok(text) = serde_json::to_string(&line) {
            out.push_str(&text);
            out.push('\n');
        }
    };
    push(Line::Header(Header {
        toolpass: &report.info.toolpass,
        protocol: PROTOCOL_VERSION,
        implementation: &report.info.implementation,
        started: rfc3339(report.info.started),
        config: &report.info.config,
    }));
    for result in report.results {
        for step in &result.steps {
            push(Line::Step(step_line(result, step)));
        }
        push(Line::Scenario(scenario_line(result)));
    }
    let summary = report.summary;
    push(Line::Footer(Footer {
        passed: summary.passed(),
        scenarios: report.results.len(),
        verdicts: Verdict::ALL
            .iter()
            .map(|&v| (v, summary.count(v)))
            .collect(),
        levels: &summary.levels,
        pending: summary.pending,
        problems: &summary.problems,
        duration_ms: millis(summary.duration),
    }));
    out
}

fn step_line<'a>(result: &'a ScenarioResult, step: &'a StepResult) -> StepLine<'a> {
    StepLine {
        scenario: &result.id,
        repetition: result.repetition,
        index: step.index,
        line: step.line,
        label: &step.label,
        level: step.level,
        verdict: step.verdict,
        failures: &step.failures,
        stderr_tail: Some(step.stderr_tail.as_str()).filter(|t| !t.is_empty()),
        duration_ms: millis(step.duration),
    }
}

fn scenario_line(result: &ScenarioResult) -> ScenarioLine<'_> {
    ScenarioLine {
        id: &result.id,
        path: result.path.as_ref().map(|_| text::file_name(result)),
        title: &result.title,
        spec: &result.spec,
        level: result.level,
        tags: &result.tags,
        verdict: result.verdict,
        reason: result.reason.as_deref(),
        repetition: result.repetition,
        duration_ms: millis(result.duration),
    }
}

/// Whole microseconds as fractional milliseconds, as the results serialize.
fn millis(duration: Duration) -> f64 {
    duration.as_micros() as f64 / 1000.0
}

/// The JSON Schema of one line (JSON Schema 2020-12): a `oneOf` over the
/// four line types, told apart by `type`.
pub fn schema() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Line<'static>>();
    schema.insert("title".into(), "toolpass report line (--jsonl)".into());
    schema.insert(
        "$comment".into(),
        format!(
            "One line of `toolpass run --jsonl` ({PROTOCOL_VERSION}): a header, step and scenario \
             lines, a footer. Generated from the Rust types in conformance/toolpass/src/report/\
             jsonl.rs; do not edit: run `BLESS=1 cargo test -p toolpass` to regenerate."
        )
        .into(),
    );
    let mut schema = schema.to_value();
    toolpass_protocol::drop_null(&mut schema);
    schema
}

/// [`schema`] as the committed file's text: pretty JSON ending in a newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::report::fixture;

    fn committed_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/report.jsonl.json")
    }

    #[test]
    fn the_committed_schema_matches_the_types() {
        let path = committed_path();
        let generated = schema_text();
        if std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} has drifted from the line types in src/report/jsonl.rs; \
             run `BLESS=1 cargo test -p toolpass` to update",
            path.display()
        );
    }

    #[test]
    fn every_line_validates_against_the_committed_schema() {
        let committed: Value =
            serde_json::from_str(&std::fs::read_to_string(committed_path()).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&committed).unwrap();
        let report = fixture::render(render);
        let types: Vec<String> = report
            .lines()
            .map(|line| {
                let value: Value = serde_json::from_str(line).unwrap();
                let errors: Vec<String> = validator
                    .iter_errors(&value)
                    .map(|e| e.to_string())
                    .collect();
                assert!(errors.is_empty(), "{line}\n{errors:?}");
                value["type"].as_str().unwrap().to_owned()
            })
            .collect();
        assert_eq!(types.first().map(String::as_str), Some("header"));
        assert_eq!(types.last().map(String::as_str), Some("footer"));
        let count = |t: &str| types.iter().filter(|x| *x == t).count();
        assert_eq!(count("scenario"), fixture::results().len());
        let steps: usize = fixture::results().iter().map(|r| r.steps.len()).sum();
        assert_eq!(count("step"), steps);
    }

    #[test]
    fn the_schema_refuses_a_line_of_no_known_type() {
        let validator = jsonschema::validator_for(&schema()).unwrap();
        let report = fixture::render(render);
        let mut footer: Value = serde_json::from_str(report.lines().last().unwrap()).unwrap();
        assert!(validator.is_valid(&footer));
        let mut partial = footer.clone();
        partial["verdicts"].as_object_mut().unwrap().remove("crash");
        assert!(
            !validator.is_valid(&partial),
            "a footer must count every verdict"
        );
        footer["type"] = "summary".into();
        assert!(!validator.is_valid(&footer));
        assert!(!validator.is_valid(&serde_json::json!({"type": "step", "scenario": "x"})));
    }

    #[test]
    fn steps_come_before_their_scenario_and_keys_keep_their_order() {
        let report = fixture::render(render);
        let lines: Vec<&str> = report.lines().collect();
        assert!(lines[0].starts_with(
            r#"{"type":"header","toolpass":"0.1.0","protocol":"toolpass/1","implementation":{"name":"toolpass-reference","version":"0.1.0","command":"/opt/toolpass-server --stdio"},"started":"2026-12-02T17:51:50Z","config":{"jobs":2,"timeout_s":30.0,"repeat":1,"isolate":false,"filters":{"filter":[],"tag":["edit"],"level":[],"area":[]},"expected_failures":"xfail.yaml","bless":false}}"#
        ));
        assert_eq!(
            lines[1],
            r#"{"type":"step","scenario":"edit/crlf","repetition":1,"index":1,"line":8,"label":"call read_file","level":"required","verdict":"pass","failures":[],"duration_ms":3.0}"#
        );
        assert!(lines[4].starts_with(
            r#"{"type":"scenario","id":"edit/crlf","path":"scenarios/edit/crlf.yaml","#
        ));
        let footer: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
        assert_eq!(footer["passed"], false);
        assert_eq!(footer["scenarios"], 9);
        assert_eq!(
            footer["verdicts"].as_object().unwrap().len(),
            Verdict::ALL.len()
        );
        assert_eq!(footer["verdicts"]["protocol_error"], 1);
    }
}
