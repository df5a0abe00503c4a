//! A [`Comparison`] as a text table (for the log) and as Markdown (for a
//! CI step summary); its JSON is the `Comparison` as it is.

use std::fmt::Write as _;

use super::MIN_PAIRS_PER_ROUND;
use super::compare::{Comparison, Row, Verdict};
use super::render::short_times;
use crate::report::markdown;
use crate::report::text::printable_line;

const HEADER: [&str; 7] = [
    "implementation",
    "tool",
    "baseline",
    "now",
    "change",
    "spread",
    "verdict",
];

/// The text table, aligned, then the tally.
pub fn text(comparison: &Comparison, control: &str) -> String {
    let mut lines = vec![HEADER.map(str::to_owned).to_vec()];
    for row in &comparison.rows {
        let mut cells = cells(row);
        cells[0] = printable_line(&row.implementation);
        cells[1] = printable_line(&row.tool);
        lines.push(cells);
    }
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!("\n{}:\n", intro(comparison, &printable_line(control)));
    for line in lines {
        for (cell, width) in line.iter().zip(&widths) {
            let _ = write!(out, "  {cell:<width$}");
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    let _ = writeln!(out, "{}", tally(comparison));
    out
}

/// A Markdown section: heading, the basis, the table, the tally.
pub fn markdown(comparison: &Comparison, control: &str) -> String {
    let mut out = format!(
        "### toolpass bench against {}\n\n{}.\n\n",
        markdown::code(&comparison.baseline),
        intro(comparison, &markdown::code(control))
    );
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
    for row in &comparison.rows {
        let mut cells = cells(row);
        cells[0] = markdown::text(&row.implementation);
        cells[1] = markdown::text(&row.tool);
        if row.verdict == Verdict::Regression {
            cells[6] = format!("**{}**", cells[6]);
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(out, "\n{}", tally(comparison));
    out
}

fn intro(comparison: &Comparison, control: &str) -> String {
    format!(
        "against the baseline {}: each figure is the median of each call's time over \
         {control}'s for the same step in the same round, both passed; a ratio grown by more than {} regresses, \
         one whose rounds spread more than that is unstable, one with fewer than {MIN_PAIRS_PER_ROUND} calls in a round is not judged (few calls)",
        printable_line(&comparison.baseline),
        percent(comparison.max_regression, false)
    )
}

/// The cells after the two names, which the caller escapes its own way.
fn cells(row: &Row) -> Vec<String> {
    let ratio = |r: Option<f64>| r.map_or("–".to_owned(), short_times);
    vec![
        String::new(),
        String::new(),
        ratio(row.baseline_ratio),
        ratio(row.ratio),
        row.change.map_or("–".to_owned(), |c| percent(c, true)),
        row.spread.map_or("–".to_owned(), |s| percent(s, false)),
        row.verdict.label().to_owned(),
    ]
}

fn tally(comparison: &Comparison) -> String {
    let regressions = comparison.count(Verdict::Regression);
    let mut parts = vec![format!(
        "{regressions} regression{}",
        if regressions == 1 { "" } else { "s" }
    )];
    for verdict in [
        Verdict::Unstable,
        Verdict::FewCalls,
        Verdict::Pass,
        Verdict::New,
        Verdict::Missing,
    ] {
        let n = comparison.count(verdict);
        if n > 0 || verdict == Verdict::Pass {
            parts.push(format!("{n} {}", verdict.label()));
        }
    }
    parts.join(", ")
}

/// A fraction as a whole percentage, `+` before a growth when `signed`.
pub(crate) fn percent(fraction: f64, signed: bool) -> String {
    // Rounded first, so that a change of -0.3% reads `0%`, not `-0%`.
    let value = (fraction * 100.0).round() + 0.0;
    if signed && value > 0.0 {
        format!("+{value:.0}%")
    } else {
        format!("{value:.0}%")
    }
}
