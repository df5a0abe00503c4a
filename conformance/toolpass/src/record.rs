//! `toolpass record`: writes what an implementation answered into a
//! scenario file as expectations, for a person to review. The authoring
//! path: write the calls, record, read the diff, keep what the
//! behaviour's source supports.
//!
//! The file is edited as text, so its comments and layout survive: a call
//! step without `expect` gets one (its status, and its error code when it
//! failed; the model's text only as a comment, since prose is judged at
//! `recommended` level and only where the specification fixes it), and a
//! scenario without `expect_files` gets a final one listing every file of
//! the sandbox with `exact: true`.

use std::fmt::Write as _;

use base64::Engine as _;
use toolpass_protocol::Status;
use toolpass_scenario::{Scenario, StepKind};

use crate::run::{SandboxFile, ScenarioResult};

/// The longest model text quoted in a comment.
const LLM_COMMENT_CHARS: usize = 100;

/// The annotated file, and what was left alone and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The new text of the file.
    pub text: String,
    /// Steps left alone, and why (one line each).
    pub notes: Vec<String>,
    /// How many steps got an `expect`.
    pub expectations: usize,
    /// Whether an `expect_files` step was added.
    pub files_step: bool,
}

/// `text` (the file `scenario` was loaded from) with `result`'s
/// observations written in.
pub fn record(text: &str, scenario: &Scenario, result: &ScenarioResult) -> Recorded {
    let lines: Vec<&str> = text.lines().collect();
    // Insertions by line index (0-based: insert before that line), applied
    // from the bottom so earlier indexes stay valid.
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut notes = Vec::new();
    let mut expectations = 0;
    for (i, step) in scenario.steps.iter().enumerate() {
        let index = i + 1;
        let StepKind::Call(call) = &step.kind else {
            if let StepKind::Batch(_) = &step.kind {
                notes.push(format!(
                    "step {index}: batch steps are not recorded; write their expectations by hand"
                ));
            }
            continue;
        };
        if call.expect.is_some() {
            continue;
        }
        if call.run_async {
            notes.push(format!(
                "step {index}: an async call is judged at its join or cancel step; write that \
                 step's expect by hand"
            ));
            continue;
        }
        let Some(observed) = result
            .observed
            .iter()
            .find(|o| o.step == index && o.batch_call.is_none())
        else {
            notes.push(format!(
                "step {index}: no Outcome was received (the run stopped before it?)"
            ));
            continue;
        };
        let line = step.pos.line as usize;
        let Some(start) = line.checked_sub(1).filter(|&l| l < lines.len()) else {
            notes.push(format!("step {index}: its position is unknown"));
            continue;
        };
        let key_indent = (step.pos.column as usize).saturating_sub(1);
        if lines[start]
            .get(key_indent..)
            .is_some_and(|rest| rest.starts_with('{'))
        {
            notes.push(format!(
                "step {index}: written in flow style ({{...}}); add its expect by hand"
            ));
            continue;
        }
        let at = block_end(&lines, start, key_indent);
        inserts.push((at, expect_block(key_indent, &observed.summary)));
        expectations += 1;
    }
    let has_files_step = scenario
        .steps
        .iter()
        .any(|s| matches!(s.kind, StepKind::ExpectFiles(_)));
    let mut files_step = false;
    if !has_files_step {
        match (&result.sandbox_after, scenario.steps.last()) {
            (Some(files), Some(last)) => {
                let key_indent = (last.pos.column as usize).saturating_sub(1);
                let dash_indent = key_indent.saturating_sub(2);
                let start = (last.pos.line as usize).saturating_sub(1).min(lines.len());
                let at = block_end(&lines, start, key_indent);
                inserts.push((at, files_block(dash_indent, files)));
                files_step = true;
            }
            _ => notes.push("the sandbox was not recorded (the run stopped early?)".to_owned()),
        }
    }
    inserts.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(text.len() + 256);
    let mut next = inserts.into_iter().peekable();
    for (i, line) in lines.iter().enumerate() {
        while let Some((_, block)) = next.next_if(|(at, _)| *at == i) {
            out.push_str(&block);
        }
        out.push_str(line);
        out.push('\n');
    }
    for (_, block) in next {
        out.push_str(&block);
    }
    Recorded {
        text: out,
        notes,
        expectations,
        files_step,
    }
}

/// The index of the line after a step's block: its last non-blank line
/// belongs to it; the block ends before the first later line indented less
/// than its keys (comments and blank lines do not end it).
fn block_end(lines: &[&str], start: usize, key_indent: usize) -> usize {
    let mut last = start;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.len() - trimmed.len() < key_indent {
            break;
        }
        last = i;
    }
    last + 1
}

fn expect_block(indent: usize, summary: &toolpass_protocol::OutcomeSummary) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}expect:  # recorded: review against the specification\n");
    let status = match summary.status {
        Status::Success => "success",
        Status::Error => "error",
        Status::AwaitingConfirmation => "awaiting_confirmation",
        Status::Cancelled => "cancelled",
    };
    let _ = writeln!(out, "{pad}  status: {status}");
    if let Some(code) = &summary.error_code {
        let _ = writeln!(out, "{pad}  error: {code}");
    }
    let first: String = summary
        .llm_content
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(LLM_COMMENT_CHARS)
        .collect();
    if !first.is_empty() {
        let _ = writeln!(out, "{pad}  # llm began: {}", quote(&first));
    }
    out
}

fn files_block(indent: usize, files: &[(String, SandboxFile)]) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}- expect_files:  # recorded: the sandbox at the end\n");
    for (path, file) in files {
        let value = match file {
            SandboxFile::Text(text) => quote(text),
            SandboxFile::Bytes(bytes) => format!(
                "{{base64: {}}}",
                quote(&base64::engine::general_purpose::STANDARD.encode(bytes))
            ),
            SandboxFile::Symlink(target) => format!("{{symlink: {}}}", quote(target)),
        };
        let _ = writeln!(out, "{pad}    {}: {value}", quote(path));
    }
    let _ = writeln!(out, "{pad}  exact: true");
    out
}

/// A YAML double-quoted scalar (JSON's string syntax is a subset of it).
pub(crate) fn quote(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}
