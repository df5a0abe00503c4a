//! The bench as text (a table per tool, ratios to the first
//! implementation) and as JSON (the [`Bench`] as it is).

use std::fmt::Write as _;

use super::{Bench, Stats};
use crate::report::text::printable_line;

/// The text report.
pub fn text(bench: &Bench) -> String {
    let mut out = String::new();
    // Names and versions are the implementations' own words.
    let names: Vec<String> = bench
        .implementations
        .iter()
        .map(|t| printable_line(&t.name))
        .collect();
    let first = names.first().map_or("", String::as_str);
    out.push_str("start-up, spawn to `initialize` answered (p50 / p95 / p99):\n");
    let labels: Vec<String> = bench
        .implementations
        .iter()
        .zip(&names)
        .map(|(t, name)| format!("{name} {}", printable_line(&t.version)))
        .collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (i, (timed, name)) in bench.implementations.iter().zip(&labels).enumerate() {
        let _ = write!(out, "  {name:<width$}  {}", pair(&timed.startup));
        if i > 0 {
            let _ = write!(out, "  {}", times(timed.startup_ratio, first));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\nper call, tools/call round trip (p50 / p95 / p99 ms, calls), {} round{} after {} warm-up:",
        bench.rounds,
        if bench.rounds == 1 { "" } else { "s" },
        bench.warmup
    );
    let tools: Vec<String> = bench
        .tools
        .iter()
        .map(|r| printable_line(&r.tool))
        .collect();
    let tool_width = tools.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let _ = write!(out, "  {:<tool_width$}", "tool");
    for name in &names {
        let _ = write!(out, "  {name:<42}");
    }
    out.push('\n');
    for (row, tool) in bench.tools.iter().zip(&tools) {
        let _ = write!(out, "  {tool:<tool_width$}");
        for (i, cell) in row.cells.iter().enumerate() {
            let text = match cell {
                None => "–".to_owned(),
                Some(cell) => {
                    let mut text = format!("{} ({})", pair(&cell.stats), cell.stats.count);
                    if i > 0
                        && let Some(ratio) = cell.ratio
                    {
                        let _ = write!(text, " {}", short_times(ratio));
                    }
                    text
                }
            };
            let _ = write!(out, "  {text:<42}");
        }
        out.push('\n');
    }
    if bench.implementations.len() > 1 {
        let _ = writeln!(
            out,
            "\nratios (×) are p50 over {first}'s p50, on the scenario steps both called and both passed"
        );
    }
    if !bench.warnings.is_empty() {
        let _ = writeln!(
            out,
            "\nwarning: {} figure{} not stable (a noisy machine, or an unsteady implementation); \
             rerun on a quiet machine or with more --rounds:",
            bench.warnings.len(),
            if bench.warnings.len() == 1 {
                " is"
            } else {
                "s are"
            }
        );
        for warning in &bench.warnings {
            let _ = writeln!(out, "  {}", printable_line(warning));
        }
    }
    out
}

fn pair(stats: &Stats) -> String {
    format!(
        "{} / {} / {}",
        ms(stats.p50_ms),
        ms(stats.p95_ms),
        ms(stats.p99_ms)
    )
}

/// Milliseconds with three significant digits or so.
fn ms(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else if value >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// A ratio with two significant digits or so, never rounded to `0.0×`: a
/// tiny one is `<0.01×`, one that could not be computed `–`.
pub(crate) fn short_times(ratio: f64) -> String {
    if !ratio.is_finite() {
        "–".to_owned()
    } else if ratio >= 10.0 {
        format!("{ratio:.0}×")
    } else if ratio >= 1.0 {
        format!("{ratio:.1}×")
    } else if ratio >= 0.01 {
        format!("{ratio:.2}×")
    } else {
        "<0.01×".to_owned()
    }
}

fn times(ratio: f64, first: &str) -> String {
    format!("{} {first}'s", short_times(ratio))
}
