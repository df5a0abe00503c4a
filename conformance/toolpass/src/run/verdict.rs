//! What a run found: a [`Verdict`] per step and per scenario, with the
//! [`Failure`]s that explain each non-passing one.
//!
//! This is the data every report renders (text, JSONL, JUnit, Markdown) and
//! the expected-failures file is matched against; nothing here knows how it
//! is shown.

use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolpass_protocol::OutcomeSummary;
use toolpass_scenario::Level;
use toolpass_scenario::placeholder::template_of;

/// How a step or a scenario ended.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every expectation held.
    Pass,
    /// An expectation did not hold.
    Fail,
    /// A failure the expected-failures file lists, failing as listed.
    Xfail,
    /// The expected-failures file lists it, but it passed.
    Xpass,
    /// Not run: the implementation lacks a feature the scenario needs.
    Skip,
    /// The runner could not carry the scenario out (a sandbox it could not
    /// build, an implementation it could not start, a placeholder with no
    /// value).
    Error,
    /// The implementation did not answer in time.
    Timeout,
    /// The implementation exited before answering.
    Crash,
    /// The implementation broke toolpass/1 (garbage on stdout, a wrong id,
    /// a result of the wrong shape).
    ProtocolError,
}

impl Verdict {
    /// Every verdict, in the order reports list them.
    pub const ALL: [Verdict; 9] = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::Xfail,
        Verdict::Xpass,
        Verdict::Skip,
        Verdict::Error,
        Verdict::Timeout,
        Verdict::Crash,
        Verdict::ProtocolError,
    ];

    /// The name reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Xfail => "xfail",
            Verdict::Xpass => "xpass",
            Verdict::Skip => "skip",
            Verdict::Error => "error",
            Verdict::Timeout => "timeout",
            Verdict::Crash => "crash",
            Verdict::ProtocolError => "protocol_error",
        }
    }

    /// Whether this is a failure of the implementation or the run (not
    /// pass, xfail or skip).
    pub fn is_failure(self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::Xfail | Verdict::Skip)
    }

    /// Whether the implementation stopped answering: the steps after it did
    /// not run.
    pub fn is_abort(self) -> bool {
        matches!(
            self,
            Verdict::Error | Verdict::Timeout | Verdict::Crash | Verdict::ProtocolError
        )
    }
}

/// One expectation that did not hold, or why a step could not be judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    /// What was checked: `status`, `error`, `llm`, `display`,
    /// `files[src/a.txt]`, `tools`, `call`, ...
    pub what: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The expected text, for a diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The actual text: for a diff with `expected`, or alone when the
    /// condition was a needle, a pattern or a count (`contains`, `regex`,
    /// `lines`, ...), so the reader sees what the text was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

impl Failure {
    /// A failure with no texts to diff.
    pub fn new(what: impl Into<String>, message: impl Into<String>) -> Failure {
        Failure {
            what: what.into(),
            message: message.into(),
            expected: None,
            actual: None,
        }
    }

    /// A failure with the expected and actual texts, for a diff.
    pub fn diff(
        what: impl Into<String>,
        message: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Failure {
        Failure {
            what: what.into(),
            message: message.into(),
            expected: Some(expected.into()),
            actual: Some(actual.into()),
        }
    }

    /// A failure of a condition that is not a whole text (a needle, a
    /// pattern, a count), with the text it was checked against.
    pub fn with_actual(
        what: impl Into<String>,
        message: impl Into<String>,
        actual: impl Into<String>,
    ) -> Failure {
        Failure {
            actual: Some(actual.into()),
            ..Failure::new(what, message)
        }
    }

    /// The first line of the message: what an expected-failures entry's
    /// `message` prefix is compared with.
    pub fn headline(&self) -> String {
        format!("{}: {}", self.what, self.message)
    }
}

/// One step as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepResult {
    /// Its number in the scenario, from 1: the `#N` of an expected-failures
    /// entry.
    pub index: usize,
    /// The line of the scenario file it starts on.
    pub line: u32,
    /// Its kind and subject, e.g. `call edit`, `expect_files`.
    pub label: String,
    /// The level its expectations are scored at.
    pub level: Level,
    /// How it ended.
    pub verdict: Verdict,
    /// Why it did not pass; empty when it did.
    pub failures: Vec<Failure>,
    /// The stderr tail of the implementation, after a crash, timeout or
    /// protocol error.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr_tail: String,
    /// Wall time of the step.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
}

/// One scenario as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioResult {
    /// Its id.
    pub id: String,
    /// The file it was loaded from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Its title.
    pub title: String,
    /// Its `spec`: the clause ids it cites, separated by `, `.
    pub spec: String,
    /// Its level.
    pub level: Level,
    /// Its tags.
    pub tags: Vec<String>,
    /// How it ended, all steps considered (and the expected-failures file,
    /// once applied).
    pub verdict: Verdict,
    /// Why it was skipped or could not run, when it was or could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The steps that ran, in order.
    pub steps: Vec<StepResult>,
    /// Which repetition this is, from 1 (`--repeat`).
    pub repetition: u32,
    /// Wall time of the scenario, sandbox included.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    /// Snapshots rewritten (`--bless`).
    #[serde(skip)]
    pub blessed: usize,
    /// Every Outcome received (`toolpass record`).
    #[serde(skip)]
    pub observed: Vec<Observed>,
    /// Where the sandbox was left (`--keep`).
    #[serde(skip)]
    pub kept_sandbox: Option<PathBuf>,
    /// What the sandbox held at the end, sorted by path, when the run was
    /// asked to record it.
    #[serde(skip)]
    pub sandbox_after: Option<Vec<(String, SandboxFile)>>,
}

impl ScenarioResult {
    /// The most important level among the steps that did not pass (or the
    /// scenario's own level when it failed before any step): the level the
    /// failure is scored at. `None` when nothing failed.
    pub fn failed_level(&self) -> Option<Level> {
        if !self.verdict.is_failure() && self.verdict != Verdict::Xfail {
            return None;
        }
        self.steps
            .iter()
            .filter(|s| s.verdict != Verdict::Pass)
            .map(|s| s.level)
            .min()
            .or(Some(self.level))
    }

    /// Writes the sandbox root as `{root}` (the directory beside it as
    /// `{outside}`, their parent as `{root}/..`) in every text the result carries, so reports and
    /// expected-failure messages do not change from one run (and one
    /// temporary directory) to the next.
    pub fn write_root_as_placeholder(&mut self, root: &str) {
        if root.is_empty() {
            return;
        }
        let outside = toolpass_scenario::outside_of(root);
        let private = toolpass_scenario::private_of(root);
        let fix = |text: &mut String| {
            if text.contains(&outside) {
                *text = text.replace(&outside, "{outside}");
            }
            if text.contains(root) {
                *text = text.replace(root, "{root}");
            }
            // What is left of the private directory is `{root}/..` itself.
            if !private.is_empty() && text.contains(private) {
                *text = text.replace(private, "{root}/..");
            }
        };
        if let Some(reason) = &mut self.reason {
            fix(reason);
        }
        for observed in &mut self.observed {
            fix(&mut observed.summary.llm_content);
            observed.summary.error_message.as_mut().map(fix);
        }
        for step in &mut self.steps {
            fix(&mut step.stderr_tail);
            for failure in &mut step.failures {
                fix(&mut failure.message);
                let differed = failure.expected != failure.actual;
                failure.expected.as_mut().map(fix);
                failure.actual.as_mut().map(fix);
                // One side held the root's path and the other the text
                // `{root}`: written the same way now, the diff would show
                // no difference at all.
                if differed && failure.expected.is_some() && failure.expected == failure.actual {
                    failure.message.push_str(
                        " (only where one side has the sandbox's path and the other the text \
                         {root}, shown alike below; a scenario writes the text as {{root}})",
                    );
                }
            }
        }
    }

    /// The steps that did not pass.
    pub fn failed_steps(&self) -> impl Iterator<Item = &StepResult> {
        self.steps.iter().filter(|s| s.verdict != Verdict::Pass)
    }
}

fn millis<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    // Whole microseconds as fractional milliseconds: readable, and exact
    // enough to compare runs.
    serializer.serialize_f64(duration.as_micros() as f64 / 1000.0)
}

/// An Outcome as received at a step, for `toolpass record` and
/// `toolpass bench`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// The step, from 1.
    pub step: usize,
    /// The call within a batch step, from 1.
    pub batch_call: Option<usize>,
    /// What the runner read of the Outcome.
    pub summary: OutcomeSummary,
    /// For a `call` step: the tool and the `tools/call` round trip, request
    /// written to answer read (judging not included).
    pub timing: Option<CallTiming>,
}

/// One `tools/call` as `toolpass bench` times it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTiming {
    /// The tool called.
    pub tool: String,
    /// Request written to answer read.
    pub elapsed: Duration,
}

/// What a path of the sandbox holds after a run; text and link targets are
/// templates once [`ScenarioResult::sandbox_after`](super::ScenarioResult)
/// holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxFile {
    /// A file of UTF-8 text.
    Text(String),
    /// A file of other bytes.
    Bytes(Vec<u8>),
    /// A symbolic link to this target.
    Symlink(String),
}

impl SandboxFile {
    /// Text and link targets as scenario templates: the root written
    /// `{root}`, other placeholder-like text escaped.
    pub(crate) fn into_template(self, root: &str) -> SandboxFile {
        match self {
            SandboxFile::Text(text) => SandboxFile::Text(template_of(&text, root)),
            SandboxFile::Symlink(target) => SandboxFile::Symlink(template_of(&target, root)),
            bytes @ SandboxFile::Bytes(_) => bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Failure, ScenarioResult, StepResult, Verdict};
    use std::time::Duration;
    use toolpass_scenario::Level;

    /// A failed scenario of one failed step with these failures.
    fn failed_with(failures: Vec<Failure>) -> ScenarioResult {
        ScenarioResult {
            id: "s".into(),
            path: None,
            title: "t".into(),
            spec: "s".into(),
            level: Level::Required,
            tags: Vec::new(),
            verdict: Verdict::Fail,
            reason: Some("at /tmp/p1/root/a".into()),
            steps: vec![StepResult {
                index: 1,
                line: 3,
                label: "call read_file".into(),
                level: Level::Required,
                verdict: Verdict::Fail,
                failures,
                stderr_tail: String::new(),
                duration: Duration::ZERO,
            }],
            repetition: 1,
            duration: Duration::ZERO,
            blessed: 0,
            observed: Vec::new(),
            kept_sandbox: None,
            sandbox_after: None,
        }
    }

    #[test]
    fn the_private_directory_is_written_as_placeholders_whatever_tmpdir_was() {
        let mut result = failed_with(vec![Failure::new(
            "llm",
            "read /tmp/p1/outside/secret.txt, then /tmp/p1/x and /tmp/p1/root",
        )]);
        result.write_root_as_placeholder("/tmp/p1/root");
        assert_eq!(result.reason.as_deref(), Some("at {root}/a"));
        assert_eq!(
            result.steps[0].failures[0].message,
            "read {outside}/secret.txt, then {root}/../x and {root}"
        );
    }

    #[test]
    fn a_diff_only_the_placeholder_hid_says_so() {
        let mut result = failed_with(vec![Failure::diff(
            "files[a.txt]",
            "the bytes on disk differ",
            "x /tmp/p1/root y\n".to_owned(),
            "x {root} y\n".to_owned(),
        )]);
        result.write_root_as_placeholder("/tmp/p1/root");
        let failure = &result.steps[0].failures[0];
        assert_eq!(failure.expected, failure.actual);
        assert!(
            failure
                .message
                .ends_with("a scenario writes the text as {{root}})"),
            "{}",
            failure.message
        );
    }

    /// `ALL` lists every verdict once: a new variant breaks this match
    /// until it is given a place, and the assertion until `ALL` has it.
    #[test]
    fn all_lists_every_verdict_in_order() {
        let place = |verdict: Verdict| match verdict {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
            Verdict::Xfail => 2,
            Verdict::Xpass => 3,
            Verdict::Skip => 4,
            Verdict::Error => 5,
            Verdict::Timeout => 6,
            Verdict::Crash => 7,
            Verdict::ProtocolError => 8,
        };
        for (i, verdict) in Verdict::ALL.iter().enumerate() {
            assert_eq!(place(*verdict), i, "{verdict:?}");
        }
    }
}
