//! The human form of a [`Diff`]: the two runs, any notes, one block per
//! kind of change (empty kinds left out), and a one-line summary.
//!
//! ```text
//! newly failing (1)
//!   edit/fuzzy/curly: pass → fail
//!     #2 `call edit`: pass → fail
//!       + status: expected success, got error | edit_no_occurrence_found
//! ```
//!
//! Under a change, `-` is the earlier run's message and `+` the later's.

use std::fmt::Write as _;

use super::{Change, Diff, Kind, Run, State, StepChange};
use crate::report::text::{Style, counted, printable_line};
use crate::run::Verdict;

/// `diff` as text, ending in a newline.
pub fn render(diff: &Diff, style: Style) -> String {
    let mut out = String::new();
    for (side, run) in [("before", &diff.before), ("after ", &diff.after)] {
        let _ = writeln!(out, "{} {}", style.paint("2", side), run_line(run));
    }
    for note in &diff.notes {
        let note = printable_line(note);
        let _ = writeln!(out, "{} {note}", style.paint("33", "note:"));
    }
    for kind in Kind::ALL {
        let changes: Vec<&Change> = diff.changes.iter().filter(|c| c.kind == kind).collect();
        if changes.is_empty() {
            continue;
        }
        let title = format!("{} ({})", kind.title(), changes.len());
        let _ = writeln!(out, "\n{}", style.paint(heading_code(kind), &title));
        for change in changes {
            out.push_str(&change_block(change, style));
        }
    }
    let _ = writeln!(out, "\n{}", summary(diff, style));
    out
}

/// The one-line summary: regression or not, the count of each kind of
/// change, and how many results were compared.
pub fn summary(diff: &Diff, style: Style) -> String {
    let counts: Vec<String> = Kind::ALL
        .iter()
        .filter(|kind| diff.counts[kind] > 0)
        .map(|kind| format!("{} {}", diff.counts[kind], kind.title()))
        .collect();
    let verdict = if diff.regression {
        style.paint("1;31", "regression")
    } else {
        style.paint("32", "no regression")
    };
    let changes = if counts.is_empty() {
        "no changes".to_owned()
    } else {
        counts.join(", ")
    };
    format!(
        "{verdict}: {changes}; {} scenario results compared",
        diff.compared
    )
}

fn heading_code(kind: Kind) -> &'static str {
    match kind {
        Kind::NewlyFailing => "1;31",
        Kind::NewlyPassing => "1;32",
        _ => "1",
    }
}

/// Every text here was read back from a report file, so each goes through
/// [`printable_line`].
fn run_line(run: &Run) -> String {
    format!(
        "{}: {} {}, runner {} ({}), started {}, {}, {} in {:.2} s",
        printable_line(&run.file),
        printable_line(&run.implementation.name),
        printable_line(&run.implementation.version),
        printable_line(&run.toolpass),
        printable_line(&run.protocol),
        printable_line(&run.started),
        counted(run.results, "result", "results"),
        if run.passed { "passed" } else { "failed" },
        run.duration_ms / 1000.0
    )
}

fn change_block(change: &Change, style: Style) -> String {
    let mut out = String::new();
    let name = printable_line(&change.name());
    let (before, after) = (change.before.as_ref(), change.after.as_ref());
    if matches!(change.kind, Kind::Slower | Kind::Faster) {
        if let (Some(a), Some(b)) = (before, after) {
            let _ = writeln!(out, "  {name}: {}", timing(a, b));
        }
        for step in &change.steps {
            let _ = writeln!(
                out,
                "    {}: {}",
                step_name(step),
                timing(&step.before, &step.after)
            );
        }
        return out;
    }
    match (before, after) {
        (Some(a), Some(b)) => {
            let _ = writeln!(out, "  {name}: {}", verdicts(a.verdict, b.verdict, style));
            if change.steps.is_empty() {
                out.push_str(&messages(a, b, "    ", style));
            }
        }
        (Some(one), None) | (None, Some(one)) => {
            let verdict = style.like(one.verdict, one.verdict.as_str());
            let _ = writeln!(out, "  {name} ({verdict})");
        }
        (None, None) => {}
    }
    for step in &change.steps {
        let _ = writeln!(
            out,
            "    {}: {}",
            step_name(step),
            verdicts(step.before.verdict, step.after.verdict, style)
        );
        out.push_str(&messages(&step.before, &step.after, "      ", style));
    }
    out
}

/// `#2 `call edit``, with the earlier label when it differs.
fn step_name(step: &StepChange) -> String {
    let label = printable_line(&step.label);
    match &step.label_before {
        Some(before) => format!("#{} `{}` → `{label}`", step.index, printable_line(before)),
        None => format!("#{} `{label}`", step.index),
    }
}

/// `pass → fail`, or the one verdict when it did not change.
fn verdicts(before: Verdict, after: Verdict, style: Style) -> String {
    let paint = |v: Verdict| style.like(v, v.as_str());
    if before == after {
        paint(after)
    } else {
        format!("{} → {}", paint(before), paint(after))
    }
}

/// The first lines of the two messages, `-` before and `+` after, when
/// they differ.
fn messages(before: &State, after: &State, indent: &str, style: Style) -> String {
    let mut out = String::new();
    if before.message == after.message {
        return out;
    }
    let first_line = |m: &str| printable_line(m.lines().next().unwrap_or_default());
    if let Some(message) = &before.message {
        let line = format!("- {}", first_line(message));
        let _ = writeln!(out, "{indent}{}", style.paint("2", &line));
    }
    if let Some(message) = &after.message {
        let _ = writeln!(out, "{indent}+ {}", first_line(message));
    }
    out
}

/// `12.0 ms → 140.0 ms (+128.0 ms, ×11.67)`; the ratio only when both
/// durations are 1 ms or more.
fn timing(before: &State, after: &State) -> String {
    let (a, b) = (before.duration_ms, after.duration_ms);
    let sign = if b < a { '−' } else { '+' };
    let mut text = format!("{a:.1} ms → {b:.1} ms ({sign}{:.1} ms", (b - a).abs());
    if a >= 1.0 && b >= 1.0 {
        let _ = write!(text, ", ×{:.2}", b / a);
    }
    text.push(')');
    text
}
