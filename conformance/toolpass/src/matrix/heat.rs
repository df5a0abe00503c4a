//! The numbers of the heatmap (area × implementation) that the page draws
//! and `matrix.md` tabulates: per area, the share of required scenarios a
//! run passed, or why it has none.
//!
//! The share is the run summary's required score restricted to the area
//! (a step's level only weakens its scenario's, so recommended scenarios
//! never count, and an expected failure counts as not passed, as in the
//! score table). Percentages are rounded down, so "100 %" means every one
//! passed and 439 of 440 reads "99 %".

use toolpass_scenario::Level;

use crate::report::{Score, Summary};
use crate::run::{ScenarioResult, Verdict};

/// One area in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AreaCell {
    /// Required scenarios the run judged there, and how many passed.
    Scored(Score),
    /// The run selected this many required scenarios there and skipped
    /// every one (a feature or tool it does not offer).
    Skipped(usize),
    /// The run selected scenarios there, none of them required and judged
    /// (recommended, optional or pending ones only).
    NoRequired,
    /// The run selected none of the area's scenarios.
    NotRun,
}

impl AreaCell {
    /// The cell of one area of a run: `summary` tallies `results`, the
    /// run's results in that area.
    pub fn new(summary: &Summary, results: &[ScenarioResult]) -> AreaCell {
        match summary.levels.get(&Level::Required) {
            Some(score) if score.total > 0 => AreaCell::Scored(*score),
            _ => {
                let skipped = results
                    .iter()
                    .filter(|r| r.level == Level::Required && r.verdict == Verdict::Skip)
                    .count();
                if skipped > 0 {
                    AreaCell::Skipped(skipped)
                } else {
                    AreaCell::NoRequired
                }
            }
        }
    }

    /// The score, when there is one.
    pub fn score(self) -> Option<Score> {
        match self {
            AreaCell::Scored(score) => Some(score),
            _ => None,
        }
    }

    /// The cell's two lines: `37/40` and `92 %`, or `–` and why.
    pub fn lines(self) -> (String, String) {
        match self {
            AreaCell::Scored(score) => (
                format!("{}/{}", score.passed, score.total),
                format!("{} %", percent(score)),
            ),
            AreaCell::Skipped(_) => ("–".to_owned(), "skipped".to_owned()),
            AreaCell::NoRequired => ("–".to_owned(), "none judged".to_owned()),
            AreaCell::NotRun => ("–".to_owned(), "not run".to_owned()),
        }
    }

    /// The cell as one table cell of text: `37/40 (92 %)`, or `–`.
    pub fn text(self) -> String {
        match self {
            AreaCell::Scored(_) => {
                let (count, share) = self.lines();
                format!("{count} ({share})")
            }
            _ => "–".to_owned(),
        }
    }

    /// The cell in words, for a screen reader and a tooltip; `kind` names
    /// the scenarios counted (`required`, `safety`).
    pub fn describe(self, kind: &str) -> String {
        match self {
            AreaCell::Scored(score) => format!(
                "{} of {} {kind} scenarios passed ({} %)",
                score.passed,
                score.total,
                percent(score)
            ),
            AreaCell::Skipped(1) => format!("its 1 {kind} scenario skipped"),
            AreaCell::Skipped(n) => format!("all {n} {kind} scenarios skipped"),
            AreaCell::NoRequired => format!("no {kind} scenario judged"),
            AreaCell::NotRun => "not run".to_owned(),
        }
    }

    /// A whole-run score as a cell: [`AreaCell::NoRequired`] when it is
    /// empty.
    pub fn of_score(score: Score) -> AreaCell {
        if score.total == 0 {
            AreaCell::NoRequired
        } else {
            AreaCell::Scored(score)
        }
    }
}

/// `passed` of `total` in whole percent, rounded down (so only a full
/// pass reads 100); 0 for an empty score.
pub fn percent(score: Score) -> usize {
    (100 * score.passed).checked_div(score.total).unwrap_or(0)
}
