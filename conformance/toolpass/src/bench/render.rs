//! The bench as text (a table per tool, ratios to the first
//! implementation) and as JSON (the [`Bench`] as it is).

use std::fmt::Write as _;

use super::{Bench, Stats};

/// The text report.
pub fn text(bench: &Bench) -> String {
    let mut out = String::new();
    let first = bench
        .implementations
        .first()
        .map_or("", |t| t.name.as_str());
    out.push_str("start-up, spawn to `initialize` answered (p50 / p99):\n");
    let width = bench
        .implementations
        .iter()
        .map(|t| t.name.len() + t.version.len() + 1)
        .max()
        .unwrap_or(0);
    for (i, timed) in bench.implementations.iter().enumerate() {
        let name = format!("{} {}", timed.name, timed.version);
        let _ = write!(out, "  {name:<width$}  {}", pair(&timed.startup));
        if i > 0 {
            let _ = write!(out, "  {}", times(timed.startup_ratio, first));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\nper call, tools/call round trip (p50 / p99 ms, calls), {} round{} after {} warm-up:",
        bench.rounds,
        if bench.rounds == 1 { "" } else { "s" },
        bench.warmup
    );
    let tool_width = bench.tools.iter().map(|r| r.tool.len()).max().unwrap_or(0);
    let _ = write!(out, "  {:<tool_width$}", "tool");
    for timed in &bench.implementations {
        let _ = write!(out, "  {:<34}", timed.name);
    }
    out.push('\n');
    for row in &bench.tools {
        let _ = write!(out, "  {:<tool_width$}", row.tool);
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
            let _ = write!(out, "  {text:<34}");
        }
        out.push('\n');
    }
    if bench.implementations.len() > 1 {
        let _ = writeln!(
            out,
            "\nratios (×) are p50 over {first}'s p50, on the scenario steps both called"
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
            let _ = writeln!(out, "  {warning}");
        }
    }
    out
}

fn pair(stats: &Stats) -> String {
    format!("{} / {}", ms(stats.p50_ms), ms(stats.p99_ms))
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

fn short_times(ratio: f64) -> String {
    if ratio >= 10.0 {
        format!("{ratio:.0}×")
    } else {
        format!("{ratio:.1}×")
    }
}

fn times(ratio: f64, first: &str) -> String {
    format!("{} {first}'s", short_times(ratio))
}
