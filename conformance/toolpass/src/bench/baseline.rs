//! The baseline file of `toolpass bench --save-baseline`: per tool, each
//! implementation's p50/p99 and its ratio to the control (the first
//! implementation) measured in the same, interleaved run.
//!
//! The gate compares ratios, not times: a CI machine twice as slow as the
//! one that saved the baseline slows the control as much as the
//! implementation, and the ratio stays. Times are kept for the reader.
//!
//! The file is versioned JSON; a file of another format or version, or one
//! whose implementations are not this run's, is refused with its name and
//! what is wrong rather than compared.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Bench, PairedRatio};

/// The `format` of every baseline file.
pub const FORMAT: &str = "toolpass-bench-baseline";
/// The `version` this toolpass writes and reads.
pub const VERSION: u32 = 1;

/// A saved bench.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] when written by this toolpass.
    pub version: u32,
    /// Rounds that counted when it was saved.
    pub rounds: u32,
    /// The implementations in the bench's order; the first is the control,
    /// whose ratios are all 1.
    pub implementations: Vec<Figures>,
}

/// One implementation's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    /// Its `serverInfo.name`, which must match on comparison.
    pub name: String,
    /// Its `serverInfo.version` then (informative: a new version is what
    /// a baseline is compared against).
    pub version: String,
    /// Its command line then (informative: paths differ between machines).
    pub command: String,
    /// One per tool it called, then `all tools`.
    pub tools: Vec<Figure>,
}

/// One tool of one implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    /// The tool, or `all tools`.
    pub tool: String,
    /// Calls timed.
    pub calls: usize,
    /// Median round trip.
    pub p50_ms: f64,
    /// 99th percentile round trip.
    pub p99_ms: f64,
    /// Its ratio to the control, call by call ([`PairedRatio`]); `None`
    /// when they passed no step in common.
    pub ratio: Option<PairedRatio>,
}

impl Baseline {
    /// The figures of `bench`.
    pub fn of(bench: &Bench) -> Baseline {
        let implementations = bench
            .implementations
            .iter()
            .enumerate()
            .map(|(i, timed)| Figures {
                name: timed.name.clone(),
                version: timed.version.clone(),
                command: timed.command.clone(),
                tools: bench
                    .tools
                    .iter()
                    .filter_map(|row| {
                        let cell = row.cells.get(i)?.as_ref()?;
                        Some(Figure {
                            tool: row.tool.clone(),
                            calls: cell.stats.count,
                            p50_ms: cell.stats.p50_ms,
                            p99_ms: cell.stats.p99_ms,
                            ratio: cell.paired,
                        })
                    })
                    .collect(),
            })
            .collect();
        Baseline {
            format: FORMAT.to_owned(),
            version: VERSION,
            rounds: bench.rounds,
            implementations,
        }
    }

    /// Writes it as pretty JSON to `path`.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| format!("cannot write the baseline as JSON: {e}"))?;
        json.push('\n');
        std::fs::write(path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Reads the baseline at `path`: an error names the file and what is
    /// wrong with it.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the baseline {}: {e}", path.display()))?;
        Baseline::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a baseline's text, checking its format and version before its
    /// fields, so that an older or foreign file says so.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let format = value.get("format").and_then(serde_json::Value::as_str);
        if format != Some(FORMAT) {
            return Err(format!(
                "not a bench baseline: its \"format\" is {}, not \"{FORMAT}\" \
                 (write one with `toolpass bench --save-baseline`)",
                value
                    .get("format")
                    .map_or("missing".to_owned(), |f| f.to_string())
            ));
        }
        let version = value.get("version").and_then(serde_json::Value::as_u64);
        if version != Some(u64::from(VERSION)) {
            return Err(format!(
                "baseline version {}, but this toolpass reads version {VERSION}; \
                 save it again with `toolpass bench --save-baseline`",
                value
                    .get("version")
                    .map_or("missing".to_owned(), |v| v.to_string())
            ));
        }
        let baseline: Baseline =
            serde_json::from_value(value).map_err(|e| format!("not a valid baseline: {e}"))?;
        if baseline.implementations.len() < 2 {
            return Err(format!(
                "a baseline holds a control and at least one implementation; this one has {}",
                baseline.implementations.len()
            ));
        }
        Ok(baseline)
    }

    /// Whether `bench` ran the same implementations in the same order;
    /// otherwise what differs.
    pub fn check_matches(&self, bench: &Bench) -> Result<(), String> {
        let saved: Vec<&str> = self
            .implementations
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        let now: Vec<&str> = bench
            .implementations
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        if saved == now {
            return Ok(());
        }
        Err(format!(
            "it was saved for the implementations [{}] (the first the control), \
             but this bench ran [{}]; give the same --impl in the same order, \
             or save a new baseline",
            saved.join(", "),
            now.join(", ")
        ))
    }

    /// The figures, `implementation tool (spread)`, whose rounds spread
    /// more than `limit`: a comparison at that limit finds them unstable
    /// whatever it measures. A figure of few calls is never judged:
    /// [`Baseline::few_calls`] names it.
    pub fn noisy(&self, limit: f64) -> Vec<String> {
        self.named(|ratio| {
            let spread = ratio.rounds?.spread;
            (spread > limit && !ratio.too_few_calls()).then(|| format!("{:.0}%", spread * 100.0))
        })
    }

    /// The figures, `implementation tool (N a round)`, with fewer than
    /// [`super::MIN_PAIRS_PER_ROUND`] calls in a round: a comparison never
    /// judges them.
    pub fn few_calls(&self) -> Vec<String> {
        self.named(|ratio| {
            ratio
                .too_few_calls()
                .then(|| format!("{} a round", ratio.fewest_in_a_round))
        })
    }

    /// `implementation tool (detail)` for each figure, the control's
    /// aside, for which `detail` says something.
    fn named(&self, detail: impl Fn(&PairedRatio) -> Option<String>) -> Vec<String> {
        let figures = self.implementations.iter().skip(1).flat_map(|figures| {
            let detail = &detail;
            figures.tools.iter().filter_map(move |figure| {
                let said = detail(figure.ratio.as_ref()?)?;
                Some(format!("{} {} ({said})", figures.name, figure.tool))
            })
        });
        figures.collect()
    }

    /// The figure of implementation `index` for `tool`.
    pub(crate) fn figure(&self, index: usize, tool: &str) -> Option<&Figure> {
        self.implementations
            .get(index)?
            .tools
            .iter()
            .find(|f| f.tool == tool)
    }
}
