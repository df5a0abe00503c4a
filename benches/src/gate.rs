//! The instruction-count gate: committed baselines, the counts of a run of
//! the `instructions` bench, and the comparison that fails CI.
//!
//! Counts come from callgrind, so they do not move with the machine's load:
//! a rise past [`DEFAULT_LIMIT_PERCENT`] is a change in the code (or the
//! toolchain), never noise. The baseline file is a table of `name<TAB>count`
//! lines, sorted by name, with `#` comments; [`render_baselines`] writes it
//! and [`parse_baselines`] reads it back.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The largest rise over its baseline a count may show and still pass, in
/// percent. ARCHITECTURE.md says why 2.
pub const DEFAULT_LIMIT_PERCENT: f64 = 2.0;

/// The variable that makes one bench do extra work, to prove the gate
/// bites: `BENCH_ID:N` adds a loop of `N` iterations (about four
/// instructions each) to the measured function of the bench `BENCH_ID`.
pub const SLOWDOWN_ENV: &str = "TOOLPASS_GATE_SLOWDOWN";

/// Counts by bench name (`function::id`, e.g. `matching::exact_hit_1mib`).
pub type Counts = BTreeMap<String, u64>;

/// The extra iterations [`SLOWDOWN_ENV`]'s value `spec` asks of the bench
/// `id`: `N` when `spec` is `id:N`, 0 when it is unset or names another
/// bench.
///
/// # Errors
/// A value that is not `BENCH:N` with a whole `N`: a typo must not turn the
/// proof that the gate bites into a run that slows nothing.
pub fn slowdown_for(spec: Option<&str>, id: &str) -> Result<u64, String> {
    let Some(spec) = spec else { return Ok(0) };
    let parsed = spec
        .rsplit_once(':')
        .and_then(|(name, n)| Some((name, n.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((name, n)) if name == id => Ok(n),
        Some(_) => Ok(0),
        None => Err(format!(
            "{SLOWDOWN_ENV}={spec:?} is not BENCH:N (e.g. matching::exact_hit_1mib:4000)"
        )),
    }
}

/// Reads a baseline table. Errors name the line and what is wrong with it.
///
/// # Errors
/// A line that is not `name<TAB>count`, a count that is not a whole
/// number, or a name given twice.
pub fn parse_baselines(text: &str) -> Result<Counts, String> {
    let mut counts = Counts::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, count)) = line.split_once('\t') else {
            return Err(format!(
                "line {number}: expected `name<TAB>count`, got {line:?}"
            ));
        };
        let count: u64 = count.trim().parse().map_err(|e| {
            format!("line {number}: the count of {name} is not a whole number ({count:?}: {e})")
        })?;
        if counts.insert(name.to_owned(), count).is_some() {
            return Err(format!("line {number}: {name} is listed twice"));
        }
    }
    Ok(counts)
}

/// The bench name (`function::id`) and the total instruction count (`Ir`,
/// all threads) of one gungraun `summary.json`.
///
/// # Errors
/// JSON that is not a callgrind summary: the message names the missing
/// field.
pub fn read_summary(json: &str) -> Result<(String, u64), String> {
    let summary: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let field = |path: &str| {
        summary
            .pointer(path)
            .ok_or_else(|| format!("no {path} in the summary"))
    };
    let function = field("/function_name")?.as_str().unwrap_or_default();
    let id = field("/id")?.as_str().unwrap_or_default();
    // `new` is this run; `old`, when present, is gungraun's own previous
    // run, which the gate ignores in favour of the committed baseline.
    let count = field("/profiles/0/data/total/metrics/Ir/values/new")?
        .as_u64()
        .ok_or("the Ir count is not a whole number")?;
    Ok((format!("{function}::{id}"), count))
}

/// Writes a baseline table that [`parse_baselines`] reads back.
#[must_use]
pub fn render_baselines(counts: &Counts) -> String {
    let mut out = String::from(
        "# Instruction counts of the `instructions` bench (callgrind, one run each).\n\
         # Written by `just bench-bless`; CI fails when a count rises more than 2% above its line.\n",
    );
    for (name, count) in counts {
        let _ = writeln!(out, "{name}\t{count}");
    }
    out
}

/// One bench's line of the gate's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The bench's name.
    pub name: String,
    /// Its committed count, if it has one.
    pub baseline: Option<u64>,
    /// Its count in this run, if it ran.
    pub now: Option<u64>,
    /// What the gate makes of the pair.
    pub verdict: Verdict,
}

/// The gate's judgement of one bench.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Within the limit; the change in percent (negative is fewer
    /// instructions).
    Pass(f64),
    /// Rose past the limit, by this many percent.
    Regressed(f64),
    /// Ran but has no baseline: a new bench nobody blessed.
    NoBaseline,
    /// Has a baseline but did not run: a bench removed or renamed without
    /// blessing, or a run that stopped early.
    NotMeasured,
}

impl Verdict {
    /// Whether this verdict fails the gate.
    #[must_use]
    pub fn fails(self) -> bool {
        !matches!(self, Verdict::Pass(_))
    }
}

/// Compares this run's counts with the baselines, one row per bench named
/// in either, sorted by name.
#[must_use]
pub fn compare(baselines: &Counts, now: &Counts, limit_percent: f64) -> Vec<Row> {
    let names: std::collections::BTreeSet<&String> = baselines.keys().chain(now.keys()).collect();
    names
        .into_iter()
        .map(|name| {
            let baseline = baselines.get(name).copied();
            let current = now.get(name).copied();
            let verdict = match (baseline, current) {
                (Some(base), Some(count)) => {
                    let change = percent_change(base, count);
                    if change > limit_percent {
                        Verdict::Regressed(change)
                    } else {
                        Verdict::Pass(change)
                    }
                }
                (None, _) => Verdict::NoBaseline,
                (Some(_), None) => Verdict::NotMeasured,
            };
            Row {
                name: name.clone(),
                baseline,
                now: current,
                verdict,
            }
        })
        .collect()
}

/// `now` over `base` in percent; a zero baseline counts any rise as
/// infinite.
#[allow(clippy::cast_precision_loss)] // Counts far below 2^52.
fn percent_change(base: u64, now: u64) -> f64 {
    if base == 0 {
        return if now == 0 { 0.0 } else { f64::INFINITY };
    }
    (now as f64 - base as f64) / base as f64 * 100.0
}

/// The gate's table: name, baseline, now, change, and the verdict.
#[must_use]
pub fn render_table(rows: &[Row], limit_percent: f64) -> String {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let count = |c: Option<u64>| c.map_or_else(|| "-".to_owned(), |c| c.to_string());
    let mut out = format!(
        "{:<width$}  {:>14}  {:>14}  {:>8}  verdict (limit +{limit_percent}%)\n",
        "name", "baseline", "now", "change"
    );
    for row in rows {
        let (change, verdict) = match row.verdict {
            Verdict::Pass(c) => (format!("{c:+.2}%"), "ok"),
            Verdict::Regressed(c) => (format!("{c:+.2}%"), "REGRESSED"),
            Verdict::NoBaseline => ("-".to_owned(), "NO BASELINE (just bench-bless)"),
            Verdict::NotMeasured => ("-".to_owned(), "NOT MEASURED"),
        };
        let _ = writeln!(
            out,
            "{:<width$}  {:>14}  {:>14}  {change:>8}  {verdict}",
            row.name,
            count(row.baseline),
            count(row.now)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> Counts {
        pairs.iter().map(|(n, c)| ((*n).to_owned(), *c)).collect()
    }

    #[test]
    fn a_rise_past_the_limit_fails_and_one_within_it_passes() {
        let base = counts(&[("a", 1_000_000), ("b", 1_000_000), ("c", 1_000_000)]);
        let now = counts(&[("a", 1_020_000), ("b", 1_020_001), ("c", 900_000)]);
        let rows = compare(&base, &now, DEFAULT_LIMIT_PERCENT);
        let verdicts: Vec<bool> = rows.iter().map(|r| r.verdict.fails()).collect();
        assert_eq!(verdicts, [false, true, false]);
        assert_eq!(rows[2].verdict, Verdict::Pass(-10.0));
    }

    #[test]
    fn a_bench_without_a_baseline_or_a_baseline_without_a_run_fails() {
        let rows = compare(&counts(&[("gone", 5)]), &counts(&[("new", 5)]), 2.0);
        assert_eq!(rows[0].name, "gone");
        assert_eq!(rows[0].verdict, Verdict::NotMeasured);
        assert_eq!(rows[1].verdict, Verdict::NoBaseline);
        assert!(rows.iter().all(|r| r.verdict.fails()));
    }

    #[test]
    fn baselines_round_trip_and_bad_lines_are_named() {
        let table = counts(&[("matching::x", 12), ("tools::y", 34)]);
        assert_eq!(parse_baselines(&render_baselines(&table)), Ok(table));
        let err = parse_baselines("# c\na\t1\nb 2\n").unwrap_err();
        assert!(err.starts_with("line 3:"), "{err}");
        let err = parse_baselines("a\tmany\n").unwrap_err();
        assert!(err.contains("a is not a whole number"), "{err}");
        let err = parse_baselines("a\t1\na\t2\n").unwrap_err();
        assert!(err.contains("line 2: a is listed twice"), "{err}");
    }

    #[test]
    fn a_summary_gives_its_name_and_total_ir() {
        // The fields the gate reads of a gungraun 0.20 summary.json.
        let json = r#"{"function_name": "tools", "id": "edit_64kib", "profiles": [{"data":
            {"total": {"metrics": {"Dr": {"values": {"new": 7}},
                                   "Ir": {"values": {"new": 2844657, "old": 2844000}}}}}}]}"#;
        assert_eq!(
            read_summary(json),
            Ok(("tools::edit_64kib".to_owned(), 2_844_657))
        );
        let err = read_summary(r#"{"function_name": "t", "id": "x", "profiles": []}"#);
        assert!(
            err.unwrap_err()
                .contains("/profiles/0/data/total/metrics/Ir/values/new")
        );
    }

    #[test]
    fn the_table_shows_every_figure() {
        let rows = compare(&counts(&[("m::a", 100)]), &counts(&[("m::a", 103)]), 2.0);
        let table = render_table(&rows, 2.0);
        assert!(table.contains("m::a"), "{table}");
        assert!(table.contains("100") && table.contains("103"), "{table}");
        assert!(table.contains("+3.00%  REGRESSED"), "{table}");
    }

    #[test]
    fn the_slowdown_names_one_bench() {
        assert_eq!(
            slowdown_for(Some("matching::x:500"), "matching::x"),
            Ok(500)
        );
        assert_eq!(slowdown_for(Some("matching::x:500"), "matching::y"), Ok(0));
        assert_eq!(slowdown_for(None, "matching::x"), Ok(0));
        let err = slowdown_for(Some("matching::x:lots"), "matching::y").unwrap_err();
        assert!(err.contains("\"matching::x:lots\" is not BENCH:N"), "{err}");
    }
}
