//! `toolpass matrix`: several runs' `--jsonl` reports side by side —
//! scenario × implementation — as one static HTML page ([`html`]), one
//! Markdown table ([`markdown`]) and a shields.io endpoint badge per
//! implementation ([`badge`]). Both documents open with the same area ×
//! implementation numbers ([`heat`]).
//!
//! The matrix is built from the reports alone (what each run recorded),
//! so it can be rendered long after the runs, on another machine.

pub mod badge;
pub mod heat;
pub mod html;
pub mod markdown;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use toolpass_scenario::{Level, SAFETY_TAG};

use crate::report::read::ReadReport;
use crate::report::{Score, Summary, headline, text};
use crate::run::{ScenarioResult, Verdict};
use heat::AreaCell;

/// One implementation's column: who it is and its tallies.
#[derive(Debug, Clone)]
pub struct Column {
    /// What the column is called: the implementation's `serverInfo.name`,
    /// with the report's file stem when two reports share one.
    pub label: String,
    /// Its `serverInfo.version`.
    pub version: String,
    /// The report it was read from.
    pub file: String,
    /// A file-name-safe form of the label, for badges and anchors.
    pub slug: String,
    /// The whole run's tallies.
    pub summary: Summary,
    /// The tallies per area (a scenario id's directory).
    pub areas: BTreeMap<String, Summary>,
    /// The heatmap's cell per area the run selected scenarios in.
    pub heat: BTreeMap<String, AreaCell>,
    /// The safety profile's score ([`safety_score`]), beside the full
    /// suite's per-level scores in `summary`.
    pub safety: Score,
}

/// One scenario's row.
#[derive(Debug, Clone)]
pub struct Row {
    /// The scenario id.
    pub id: String,
    /// Its area: the id's directory (`edit/fuzzy`), `(top level)` for an id without one.
    pub area: String,
    /// Its level, from the first report that ran it.
    pub level: Level,
    /// Its title, from the first report that ran it.
    pub title: String,
    /// Its `spec`.
    pub spec: String,
    /// One cell per column; `None` where that run did not select it.
    pub cells: Vec<Option<Cell>>,
}

/// One scenario's outcome in one implementation's run.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Its verdict (the first repetition that did not pass, if any did not).
    pub verdict: Verdict,
    /// One line saying why it did not pass; empty for a pass.
    pub headline: String,
    /// The full plain-text report of the result (steps, diffs), empty for
    /// a pass.
    pub detail: String,
}

/// Scenario × implementation.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// The implementations, in the order the reports were given.
    pub columns: Vec<Column>,
    /// The scenarios, sorted by id: every id any report has.
    pub rows: Vec<Row>,
}

impl Matrix {
    /// Lines up `reports`, one column each, in order.
    pub fn new(reports: &[ReadReport]) -> Matrix {
        let labels = labels(reports);
        let columns = reports
            .iter()
            .zip(labels)
            .map(|(report, label)| {
                let (areas, heat) = by_area(&report.results);
                Column {
                    slug: slug(&label),
                    label,
                    version: report.header.implementation.version.clone(),
                    file: report.file.clone(),
                    summary: Summary::new(&report.results, report.duration, Vec::new()),
                    areas,
                    heat,
                    safety: safety_score(&report.results),
                }
            })
            .collect();
        let ids: BTreeSet<&str> = reports
            .iter()
            .flat_map(|r| r.results.iter().map(|s| s.id.as_str()))
            .collect();
        let rows = ids.into_iter().map(|id| row(id, reports)).collect();
        Matrix { columns, rows }
    }

    /// Every area, sorted.
    pub fn areas(&self) -> BTreeSet<&str> {
        self.rows.iter().map(|r| r.area.as_str()).collect()
    }

    /// The levels any column scored, in level order.
    pub fn levels(&self) -> BTreeSet<Level> {
        self.columns
            .iter()
            .flat_map(|c| c.summary.levels.keys().copied())
            .collect()
    }

    /// Whether any run that judged the row did not pass it. A run that did
    /// not select the scenario, or skipped it for a feature it lacks, did
    /// not judge it (the scores count skips separately).
    pub fn not_passed_everywhere(row: &Row) -> bool {
        row.cells
            .iter()
            .flatten()
            .any(|c| !matches!(c.verdict, Verdict::Pass | Verdict::Skip))
    }

    /// Whether the runs that judged the row gave it different verdicts.
    /// Skips and scenarios a run did not select are left out: they say
    /// what an implementation offers, not how it behaves, and counting
    /// them would list every scenario of a feature one peer lacks. An
    /// expected failure (xfail) differs from a plain failure: one peer
    /// lists the difference, the other does not.
    pub fn verdicts_differ(row: &Row) -> bool {
        let mut judged = row
            .cells
            .iter()
            .flatten()
            .map(|c| c.verdict)
            .filter(|v| *v != Verdict::Skip);
        let Some(first) = judged.next() else {
            return false;
        };
        judged.any(|v| v != first)
    }
}

impl Column {
    /// The heatmap's cell of `area`: [`AreaCell::NotRun`] when the run
    /// selected none of its scenarios.
    pub fn heat(&self, area: &str) -> AreaCell {
        self.heat.get(area).copied().unwrap_or(AreaCell::NotRun)
    }

    /// The whole run's required score.
    pub fn required(&self) -> Score {
        self.summary
            .levels
            .get(&Level::Required)
            .copied()
            .unwrap_or_default()
    }
}

/// The safety profile's score of a run: of the scenarios tagged `safety`
/// it judged (skipped and pending ones aside), those that passed. A listed
/// difference (xfail) does not pass: the profile is what every tool layer
/// must guarantee, whatever its expected-failures file says. Read from each
/// result's tags, so a full run's report gives it without a `--profile
/// safety` run.
pub fn safety_score(results: &[ScenarioResult]) -> Score {
    let mut score = Score::default();
    let judged = results.iter().filter(|r| {
        r.tags.iter().any(|t| t == SAFETY_TAG)
            && r.level != Level::Pending
            && r.verdict != Verdict::Skip
    });
    for result in judged {
        score.total += 1;
        score.passed += usize::from(matches!(result.verdict, Verdict::Pass | Verdict::Xpass));
    }
    score
}

/// A scenario's area: its id's directory.
pub fn area(id: &str) -> &str {
    id.rsplit_once('/').map_or("(top level)", |(dir, _)| dir)
}

/// `passed/total`, or `–` when nothing at that level was scored.
pub fn score_text(score: Option<&Score>) -> String {
    match score {
        Some(score) if score.total > 0 => format!("{}/{}", score.passed, score.total),
        _ => "–".to_owned(),
    }
}

/// The anchor of one failing cell: unique per column and scenario.
pub fn anchor(column: &Column, id: &str) -> String {
    format!("{}--{}", column.slug, slug(id))
}

/// Lower-case letters, digits and `-`, every other run of characters one `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// Column labels: the implementation's name, made unique with the report's
/// file stem (`runs/qwen-code.jsonl` → `qwen-code`) where two reports share
/// a name.
fn labels(reports: &[ReadReport]) -> Vec<String> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for report in reports {
        *seen
            .entry(report.header.implementation.name.as_str())
            .or_default() += 1;
    }
    reports
        .iter()
        .map(|report| {
            let name = report.header.implementation.name.as_str();
            if seen[name] > 1 {
                let file = std::path::Path::new(&report.file);
                let stem = file.file_stem().unwrap_or(file.as_os_str());
                format!("{name} ({})", stem.to_string_lossy())
            } else {
                name.to_owned()
            }
        })
        .collect()
}

/// Each area's tallies and heatmap cell.
fn by_area(results: &[ScenarioResult]) -> (BTreeMap<String, Summary>, BTreeMap<String, AreaCell>) {
    let mut grouped: BTreeMap<String, Vec<ScenarioResult>> = BTreeMap::new();
    for result in results {
        grouped
            .entry(area(&result.id).to_owned())
            .or_default()
            .push(result.clone());
    }
    let mut summaries = BTreeMap::new();
    let mut heat = BTreeMap::new();
    for (area, results) in grouped {
        let duration = results.iter().map(|r| r.duration).sum();
        let summary = Summary::new(&results, duration, Vec::new());
        heat.insert(area.clone(), AreaCell::new(&summary, &results));
        summaries.insert(area, summary);
    }
    (summaries, heat)
}

fn row(id: &str, reports: &[ReadReport]) -> Row {
    let first = reports
        .iter()
        .find_map(|r| r.results.iter().find(|s| s.id == id))
        .expect("the id came from one of the reports");
    Row {
        id: id.to_owned(),
        area: area(id).to_owned(),
        level: first.level,
        title: first.title.clone(),
        spec: first.spec.clone(),
        cells: reports.iter().map(|r| cell(id, &r.results)).collect(),
    }
}

/// The cell of `id` in one run: its first repetition that did not pass,
/// else its first.
fn cell(id: &str, results: &[ScenarioResult]) -> Option<Cell> {
    let mut repetitions = results.iter().filter(|r| r.id == id);
    let first = repetitions.clone().next()?;
    let shown = repetitions
        .find(|r| r.verdict != Verdict::Pass)
        .unwrap_or(first);
    let passed = shown.verdict == Verdict::Pass;
    Some(Cell {
        verdict: shown.verdict,
        headline: headline(shown),
        detail: if passed {
            String::new()
        } else {
            text::scenario(shown, text::Style::new(false))
        },
    })
}
