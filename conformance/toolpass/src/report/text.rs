//! The human report: one block per scenario that did not pass, naming its
//! file and each failing step's line, with a diff of expected against
//! actual; then the scores.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use super::summary::Summary;
use crate::run::{Failure, ScenarioResult, StepResult, Verdict};

pub use crate::plural::counted;

/// ANSI styles, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    /// With colours when `color`.
    pub fn new(color: bool) -> Style {
        Style { color }
    }

    /// Colours when the output is a `terminal`, unless `NO_COLOR` is set
    /// (and not empty).
    pub fn for_terminal(terminal: bool) -> Style {
        Style::new(terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()))
    }

    /// `text` with the SGR `code` (`1` bold, `2` dim, `31` red...).
    pub(crate) fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// The verdict's name in capitals, coloured by how bad it is.
    pub fn verdict(self, verdict: Verdict) -> String {
        self.like(verdict, &verdict.as_str().to_uppercase())
    }

    /// `text` in the colour of `verdict`.
    pub fn like(self, verdict: Verdict, text: &str) -> String {
        let code = match verdict {
            Verdict::Pass | Verdict::Xfail => "32",
            Verdict::Skip => "33",
            _ => "1;31",
        };
        self.paint(code, text)
    }
}

/// The block for one scenario that did not pass; empty for a pass or a
/// skip (a skip is counted in the summary, its cause grouped there).
pub fn scenario(result: &ScenarioResult, style: Style) -> String {
    labelled(result, style, "")
}

/// The blocks of every result that did not pass, sorted by id and
/// repetition as the run returns them. Under `--repeat`, the runs of one
/// scenario that failed alike are one block saying in how many runs (`in 3
/// of 3 runs`); runs that failed differently each get a block with their
/// run number.
pub fn scenarios(results: &[ScenarioResult], style: Style) -> String {
    let mut out = String::new();
    for runs in results.chunk_by(|a, b| a.id == b.id) {
        if let [only] = runs {
            out.push_str(&scenario(only, style));
            continue;
        }
        // Blocks rendered without a label, so alike runs compare equal.
        let mut alike: Vec<(String, Vec<&ScenarioResult>)> = Vec::new();
        for result in runs {
            let block = scenario(result, style);
            if block.is_empty() {
                continue;
            }
            match alike.iter_mut().find(|(b, _)| *b == block) {
                Some((_, same)) => same.push(result),
                None => alike.push((block, vec![result])),
            }
        }
        for (_, same) in &alike {
            let label = if alike.len() == 1 {
                format!(" — in {} of {} runs", same.len(), runs.len())
            } else {
                let numbers: Vec<String> = same.iter().map(|r| r.repetition.to_string()).collect();
                let runs_word = if same.len() == 1 { "run" } else { "runs" };
                format!(" — {runs_word} {} of {}", numbers.join(", "), runs.len())
            };
            if let Some(first) = same.first() {
                out.push_str(&labelled(first, style, &label));
            }
        }
    }
    out
}

/// [`scenario`] with `label` after the header's file name.
fn labelled(result: &ScenarioResult, style: Style, label: &str) -> String {
    if matches!(result.verdict, Verdict::Pass | Verdict::Skip) {
        return String::new();
    }
    let mut out = String::new();
    let file = printable_line(&file_name(result));
    // The level the failure counts at: a recommended step of a required
    // scenario fails at recommended level, and leaves the exit code alone.
    let level = result.failed_level().unwrap_or(result.level);
    let _ = writeln!(
        out,
        "{} {} ({}) {}{label}",
        style.verdict(result.verdict),
        printable_line(&result.id),
        level.as_str(),
        style.paint("2", &file)
    );
    let _ = writeln!(out, "  {}", printable_line(&result.title));
    if let Some(reason) = &result.reason {
        for line in reason.lines() {
            let _ = writeln!(out, "  {}", printable(line));
        }
    }
    for step in result.failed_steps() {
        out.push_str(&step_block(step, &file, style));
    }
    out
}

/// The scenario's file, relative to the current directory when under it
/// (what a terminal or an editor jumps to), else as loaded.
pub fn file_name(result: &ScenarioResult) -> String {
    let Some(path) = &result.path else {
        return result.id.clone();
    };
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn step_block(step: &StepResult, file: &str, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  step {} `{}` at {file}:{} ({}, {})",
        step.index,
        printable_line(&step.label),
        step.line,
        step.verdict.as_str(),
        step.level.as_str()
    );
    for failure in &step.failures {
        out.push_str(&failure_block(failure, style));
    }
    let tail = step.stderr_tail.trim_end();
    if !tail.is_empty() {
        let _ = writeln!(out, "    stderr (tail):");
        for line in tail.lines() {
            let _ = writeln!(out, "    | {}", printable(line));
        }
    }
    out
}

fn failure_block(failure: &Failure, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "    {}: {}",
        style.paint("1", &printable_line(&failure.what)),
        printable(&failure.message)
    );
    match (&failure.expected, &failure.actual) {
        (Some(expected), Some(actual)) => out.push_str(&diff(expected, actual, style)),
        (None, Some(actual)) => {
            let _ = writeln!(out, "      {}", style.paint("2", &actual_heading(actual)));
            for line in excerpt(actual) {
                let _ = writeln!(out, "      | {line}");
            }
        }
        _ => {}
    }
    out
}

/// The lines of an actual text shown in full; a longer text shows its
/// first and last [`EXCERPT_LINES`] / 2 around a count of what was left
/// out (the JSONL report has it all).
const EXCERPT_LINES: usize = 40;
/// The characters of one shown line, so one huge line cannot flood the
/// terminal.
const EXCERPT_LINE_CHARS: usize = 240;

/// `actual (N lines):` over a text judged by a needle, pattern or count.
/// No character count: the text shown has the root written `{root}`, so
/// it would not be the count a `chars` condition judged.
pub fn actual_heading(actual: &str) -> String {
    format!(
        "actual ({}):",
        crate::plural::counted(actual.lines().count(), "line", "lines")
    )
}

/// The actual text a needle, pattern or count was checked against, as
/// lines to show: invisible characters made visible, long lines and long
/// texts cut with a note of what was left out.
pub fn excerpt(actual: &str) -> Vec<String> {
    let visible = visible(actual);
    let lines: Vec<&str> = visible.lines().collect();
    let cut = |line: &str| match line.char_indices().nth(EXCERPT_LINE_CHARS) {
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &line[..at],
            line[at..].chars().count()
        ),
        None => line.to_owned(),
    };
    if lines.len() <= EXCERPT_LINES {
        return lines.into_iter().map(cut).collect();
    }
    let half = EXCERPT_LINES / 2;
    let mut out: Vec<String> = lines[..half].iter().copied().map(cut).collect();
    out.push(format!("… ({} lines left out)", lines.len() - 2 * half));
    out.extend(lines[lines.len() - half..].iter().copied().map(cut));
    out
}

/// A line diff of `expected` against `actual`, invisible characters shown.
pub fn diff(expected: &str, actual: &str, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "      {} {}",
        style.paint("31", "- expected"),
        style.paint("32", "+ actual")
    );
    for (tag, text) in diff_lines(expected, actual) {
        let code = match tag {
            ChangeTag::Delete => "31",
            ChangeTag::Insert => "32",
            ChangeTag::Equal => "2",
        };
        let _ = writeln!(out, "      {}", style.paint(code, &text));
    }
    out
}

/// The lines of a line diff of `expected` against `actual`, invisible
/// characters shown, each with its sign (`-` expected, `+` actual, ` `
/// both) and a mark after a last line whose newline only the other side
/// has; no newlines.
pub(super) fn diff_lines(expected: &str, actual: &str) -> Vec<(ChangeTag, String)> {
    let (expected, actual) = (visible(expected), visible(actual));
    // A missing final newline is worth a mark only when the other side
    // has one.
    let newline_differs = expected.ends_with('\n') != actual.ends_with('\n');
    let diff = TextDiff::from_lines(&expected, &actual);
    diff.iter_all_changes()
        .map(|change| {
            let value = change.value();
            let line = value.strip_suffix('\n').unwrap_or(value);
            let sign = match change.tag() {
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
                ChangeTag::Equal => ' ',
            };
            let mark = if newline_differs && !value.ends_with('\n') {
                "  (no newline at end)"
            } else {
                ""
            };
            (change.tag(), format!("{sign} {line}{mark}"))
        })
        .collect()
}

/// The text with the characters a tool layer trips on made visible: `\r`,
/// other control characters, and Unicode spaces and format characters
/// (NBSP, zero-width space, BOM) as `\u{XXXX}`.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' | ' ' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || (c.is_whitespace() && !c.is_ascii()) || is_format(c) => {
                push_code(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text from outside the runner (an implementation's name, answers and
/// stderr; scenario ids and titles; a report read back) made safe to show
/// on a terminal or a rendered page: every control character (C0 but `\n`
/// and `\t`, DEL, C1) written `\u{XXXX}`, as [`visible`] writes it. ESC
/// and C1's CSI start the sequences that clear the screen, move the cursor
/// or, with OSC 52, set the reader's clipboard: none may come from data.
/// Every human-facing renderer passes what it did not write itself through
/// this, [`printable_line`] or [`visible`]; the colours of [`Style`] are
/// added after.
pub fn printable(text: &str) -> String {
    escape_controls(text, &['\n', '\t'])
}

/// [`printable`] for text that must stay on one line (a heading, a table
/// cell, a progress line): line breaks and tabs are escaped too.
pub fn printable_line(text: &str) -> String {
    escape_controls(text, &[])
}

fn escape_controls(text: &str, kept: &[char]) -> String {
    if !text.chars().any(|c| c.is_control() && !kept.contains(&c)) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && !kept.contains(&c) {
            push_code(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// `c` as `\u{XXXX}`.
pub(crate) fn push_code(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
}

/// Zero-width and byte-order characters, invisible in a terminal.
fn is_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{00ad}')
}

/// The closing lines: the scores per level, the verdict counts, the time,
/// and why the run fails.
pub fn summary(summary: &Summary, style: Style) -> String {
    let mut out = String::new();
    let levels: Vec<String> = summary
        .levels
        .iter()
        .map(|(level, score)| format!("{} {}/{}", level.as_str(), score.passed, score.total))
        .collect();
    let mut line = levels.join(" · ");
    if summary.pending > 0 {
        let _ = write!(line, " · pending {} (not scored)", summary.pending);
    }
    let _ = writeln!(out, "{line}");
    let counts: Vec<String> = summary
        .verdicts
        .iter()
        .map(|(verdict, n)| format!("{n} {}", verdict.as_str()))
        .collect();
    let _ = writeln!(
        out,
        "{}: {} in {:.2} s",
        scenario_count(summary),
        counts.join(", "),
        summary.duration.as_secs_f64()
    );
    if !summary.skips.is_empty() {
        let groups: Vec<String> = summary.skips.iter().map(ToString::to_string).collect();
        // The causes name features and tools the implementation chose.
        let _ = writeln!(out, "skipped: {}", printable(&groups.join("; ")));
    }
    if summary.passed() {
        let _ = writeln!(out, "{}", style.paint("1;32", "ok"));
    } else {
        let _ = writeln!(out, "{}", style.paint("1;31", "FAILED:"));
        for problem in &summary.problems {
            let _ = writeln!(out, "  {}", printable(problem));
        }
    }
    out
}

/// `1 scenario`, `30 scenarios`, or with `--repeat` `30 scenarios × 3 runs`
/// (the verdict counts that follow add up to the product).
pub fn scenario_count(summary: &Summary) -> String {
    let scenarios = counted(summary.scenarios, "scenario", "scenarios");
    if summary.runs > 1 {
        format!("{scenarios} × {} runs", summary.runs)
    } else {
        scenarios
    }
}
