//! Reads a `--jsonl` report back ([`read`]): the header, the scenario
//! results with their steps (as the [`ScenarioResult`]s the runner made),
//! and the footer, checked line by line so a broken file is an error that
//! says `file:line: what is wrong`.
//!
//! Fields a newer runner adds, and blank lines, are ignored; a line of an unknown `type`, a
//! missing or repeated header, steps without their `scenario` line, a
//! missing footer or one that counts other results, and a last line cut
//! short are errors.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolpass_protocol::ProtocolVersion;
use toolpass_scenario::Level;

use super::{ImplementationInfo, Settings};
use crate::run::{Failure, ScenarioResult, StepResult, Verdict};

/// A report as read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadReport {
    /// The file it was read from, as given.
    pub file: String,
    /// The header: what ran against what.
    pub header: ReadHeader,
    /// The scenario results in file order, each with its steps.
    pub results: Vec<ScenarioResult>,
    /// The footer's verdict on the run.
    pub passed: bool,
    /// The footer's reasons the run fails, one line each.
    pub problems: Vec<String>,
    /// The footer's wall time of the whole run.
    pub duration: Duration,
}

/// The header line's fields that say what ran against what.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReadHeader {
    /// The runner's version.
    pub toolpass: String,
    /// The protocol the runner spoke, `toolpass/<major>`.
    pub protocol: String,
    /// The implementation under test.
    pub implementation: ImplementationInfo,
    /// When the scenarios started running, RFC 3339.
    pub started: String,
    /// The settings of the run as written. Only `merge` needs them as
    /// [`Settings`] ([`ReadHeader::settings`]); `diff` and `matrix` take a
    /// report whose settings another writer words otherwise.
    #[serde(default)]
    pub config: Value,
}

impl ReadHeader {
    /// The settings of the run, or what keeps them from being read.
    pub fn settings(&self) -> Result<Settings, String> {
        Settings::deserialize(&self.config)
            .map_err(|e| format!("the header's `config` is not `toolpass run`'s: {e}"))
    }

    /// The protocol's major version (the header was checked to have one).
    pub fn major(&self) -> u32 {
        ProtocolVersion::parse(&self.protocol).map_or(0, ProtocolVersion::major)
    }
}

/// Why a report could not be read: `file:line: message`, or `file: message`
/// when no one line is at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The file, as given.
    pub file: String,
    /// The line at fault, from 1.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads the report at `path`.
pub fn read(path: &Path) -> Result<ReadReport, ReadError> {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&file, &text),
        Err(e) => Err(ReadError {
            file,
            line: None,
            message: format!("cannot read it: {e}"),
        }),
    }
}

#[derive(Deserialize)]
struct StepLine {
    scenario: String,
    repetition: u32,
    index: usize,
    line: u32,
    label: String,
    level: Level,
    verdict: Verdict,
    failures: Vec<Failure>,
    #[serde(default)]
    stderr_tail: Option<String>,
    duration_ms: f64,
}

#[derive(Deserialize)]
struct ScenarioLine {
    id: String,
    #[serde(default)]
    path: Option<String>,
    title: String,
    spec: String,
    level: Level,
    tags: Vec<String>,
    verdict: Verdict,
    #[serde(default)]
    reason: Option<String>,
    repetition: u32,
    duration_ms: f64,
}

#[derive(Deserialize)]
struct FooterLine {
    passed: bool,
    #[serde(default)]
    problems: Vec<String>,
    scenarios: usize,
    duration_ms: f64,
}

/// Reads `text`, the contents of `file`.
pub fn parse(file: &str, text: &str) -> Result<ReadReport, ReadError> {
    let error = |line: Option<usize>, message: String| ReadError {
        file: file.to_owned(),
        line,
        message,
    };
    let mut header: Option<ReadHeader> = None;
    let mut footer: Option<(usize, FooterLine)> = None;
    let mut results: Vec<ScenarioResult> = Vec::new();
    let mut steps: Vec<(usize, StepLine)> = Vec::new();
    let count = text.lines().count();
    for (n, raw) in text.lines().enumerate() {
        let n = n + 1;
        let at = |message: String| error(Some(n), message);
        if raw.trim().is_empty() {
            continue;
        }
        let truncated = n == count && !text.ends_with('\n');
        let value: Value = match serde_json::from_str(raw) {
            Ok(value) => value,
            Err(_) if truncated => {
                return Err(at(
                    "the last line is cut short (no newline, not complete JSON): was the run \
                     interrupted?"
                        .into(),
                ));
            }
            Err(e) => return Err(at(format!("not JSON: {}", json_message(&e)))),
        };
        let kind = match value.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(_) => return Err(at("`type` is not a string".into())),
            None if value.is_object() => return Err(at("a line without a `type`".into())),
            None => return Err(at("not a JSON object".into())),
        };
        if header.is_none() && kind != "header" {
            return Err(at(format!(
                "the first line must be the `header`, this is a `{kind}` line: is this a \
                 `toolpass run --jsonl` report?"
            )));
        }
        if let Some((footer_line, _)) = &footer {
            return Err(at(format!(
                "a `{kind}` line after the footer (line {footer_line})"
            )));
        }
        match kind.as_str() {
            "header" if header.is_some() => return Err(at("a second header".into())),
            "header" => {
                let read: ReadHeader = fields(value, &kind).map_err(at)?;
                if ProtocolVersion::parse(&read.protocol).is_none() {
                    return Err(at(format!(
                        "`protocol` is {:?}, not `toolpass/<major>`",
                        read.protocol
                    )));
                }
                if read.toolpass.trim().is_empty() {
                    return Err(at("`toolpass` (the runner's version) is empty".into()));
                }
                header = Some(read);
            }
            "step" => steps.push((n, fields(value, &kind).map_err(at)?)),
            "scenario" => {
                let line: ScenarioLine = fields(value, &kind).map_err(at)?;
                let key = (line.id.as_str(), line.repetition);
                if let Some((step_line, step)) = steps
                    .iter()
                    .find(|(_, s)| (s.scenario.as_str(), s.repetition) != key)
                {
                    return Err(error(
                        Some(*step_line),
                        format!(
                            "a step of `{}` (repetition {}) before the scenario line of `{}` \
                             (repetition {}) on line {n}",
                            step.scenario, step.repetition, key.0, key.1
                        ),
                    ));
                }
                if results.iter().any(|r| (r.id.as_str(), r.repetition) == key) {
                    return Err(at(format!(
                        "`{}` (repetition {}) a second time",
                        key.0, key.1
                    )));
                }
                results.push(scenario_result(line, std::mem::take(&mut steps)));
            }
            "footer" => footer = Some((n, fields(value, &kind).map_err(at)?)),
            other => {
                return Err(at(format!(
                    "unknown line type `{other}` (a report has header, step, scenario and \
                     footer lines)"
                )));
            }
        }
    }
    let Some(header) = header else {
        return Err(error(None, "empty: no header line".into()));
    };
    if let Some((step_line, step)) = steps.first() {
        return Err(error(
            Some(*step_line),
            format!(
                "a step of `{}` with no scenario line after it",
                step.scenario
            ),
        ));
    }
    let Some((at, footer)) = footer else {
        return Err(error(
            Some(count),
            "no footer after the last line: the report is incomplete (was the run interrupted?)"
                .into(),
        ));
    };
    if footer.scenarios != results.len() {
        return Err(error(
            Some(at),
            format!(
                "the footer counts {} scenario results, the file has {}",
                footer.scenarios,
                results.len()
            ),
        ));
    }
    Ok(ReadReport {
        file: file.to_owned(),
        header,
        results,
        passed: footer.passed,
        problems: footer.problems,
        duration: duration(footer.duration_ms),
    })
}

/// The fields of a line of type `kind`, or what is wrong with them.
fn fields<T: DeserializeOwned>(value: Value, kind: &str) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("a `{kind}` line: {}", json_message(&e)))
}

/// serde_json's message without its `at line 1 column N` (a report line is
/// one line; the column alone says little).
fn json_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rsplit_once(" at line ") {
        Some((message, _)) => message.to_owned(),
        None => text,
    }
}

/// Fractional milliseconds as written, back to a duration (negative or
/// not a number reads as zero).
fn duration(millis: f64) -> Duration {
    Duration::try_from_secs_f64(millis / 1000.0).unwrap_or_default()
}

fn scenario_result(line: ScenarioLine, steps: Vec<(usize, StepLine)>) -> ScenarioResult {
    ScenarioResult {
        id: line.id,
        path: line.path.map(Into::into),
        title: line.title,
        spec: line.spec,
        level: line.level,
        tags: line.tags,
        verdict: line.verdict,
        reason: line.reason,
        steps: steps
            .into_iter()
            .map(|(_, step)| StepResult {
                index: step.index,
                line: step.line,
                label: step.label,
                level: step.level,
                verdict: step.verdict,
                failures: step.failures,
                stderr_tail: step.stderr_tail.unwrap_or_default(),
                duration: duration(step.duration_ms),
            })
            .collect(),
        repetition: line.repetition,
        duration: duration(line.duration_ms),
        blessed: 0,
        observed: Vec::new(),
        kept_sandbox: None,
        sandbox_after: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{fixture, jsonl};

    fn parse_text(text: &str) -> Result<ReadReport, String> {
        parse("run.jsonl", text).map_err(|e| e.to_string())
    }

    /// The fixture report with `edit` applied to its lines.
    fn edited(edit: impl FnOnce(&mut Vec<String>)) -> String {
        let mut lines: Vec<String> = fixture::render(jsonl::render)
            .lines()
            .map(str::to_owned)
            .collect();
        edit(&mut lines);
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn reads_back_what_the_writer_wrote() {
        let read = parse_text(&fixture::render(jsonl::render)).unwrap();
        assert_eq!(read.header.toolpass, "0.1.0");
        assert_eq!(read.header.major(), 1);
        assert_eq!(read.header.implementation.name, "toolpass-reference");
        assert!(!read.passed);
        assert_eq!(read.duration, Duration::from_millis(1234));
        let mut expected = fixture::results();
        for result in &mut expected {
            // The writer keeps the path relative to the current directory.
            result.path = result.path.take().map(|p| p.display().to_string().into());
        }
        assert_eq!(read.results, expected);
    }

    #[test]
    fn a_broken_file_is_an_error_naming_file_and_line() {
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "run.jsonl: empty: no header line"),
            (
                edited(|lines| lines.truncate(3)),
                "run.jsonl:2: a step of `edit/crlf` with no scenario line after it",
            ),
            (
                edited(|lines| lines.truncate(5)),
                "run.jsonl:5: no footer after the last line",
            ),
            (
                edited(|_| ()).trim_end()[..200].to_owned(),
                "run.jsonl:1: the last line is cut short",
            ),
            (
                edited(|lines| lines.remove(0).clear()),
                "run.jsonl:1: the first line must be the `header`, this is a `step` line",
            ),
            (
                edited(|lines| lines[2] = lines[2].replace(r#""type":"step""#, r#""type":"x""#)),
                "run.jsonl:3: unknown line type `x`",
            ),
            (
                edited(|lines| lines[2] = lines[2].replace(r#""verdict":"#, r#""v":"#)),
                "run.jsonl:3: a `step` line: missing field `verdict`",
            ),
            (
                edited(|lines| lines[1] = "{\"type\": \"step\",".into()),
                "run.jsonl:2: not JSON: EOF while parsing a value",
            ),
            (
                edited(|lines| lines[0] = lines[0].replace("toolpass/1", "mcp")),
                "run.jsonl:1: `protocol` is \"mcp\", not `toolpass/<major>`",
            ),
            (
                edited(|lines| {
                    let footer = lines.pop().unwrap();
                    lines.push(footer.replace(r#""scenarios":9"#, r#""scenarios":8"#));
                }),
                "the footer counts 8 scenario results, the file has 9",
            ),
            (
                edited(|lines| lines.swap(3, 4)),
                "run.jsonl:5: a step of `edit/crlf` (repetition 1) before the scenario line of \
                 `edit/fuzzy/curly`",
            ),
        ];
        for (text, wanted) in cases {
            let error = parse_text(&text).unwrap_err();
            assert!(error.contains(wanted), "{error}\nwanted: {wanted}");
        }
    }

    #[test]
    fn fields_a_newer_runner_adds_and_blank_lines_are_ignored() {
        let text = edited(|lines| {
            for line in lines.iter_mut() {
                *line = line.replacen('{', r#"{"new_field":[1,2],"#, 1);
            }
        });
        assert_eq!(parse_text(&text).unwrap().results.len(), 9);
        let spaced = fixture::render(jsonl::render).replace('\n', "\n\n");
        assert_eq!(
            parse_text(&spaced).unwrap().results,
            parse_text(&text).unwrap().results
        );
    }
}
