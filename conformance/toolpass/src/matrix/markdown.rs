//! The matrix as GitHub-flavoured Markdown: the scores per level and the
//! safety profile's, the required share per area (the page's heatmap in
//! numbers), and the scenarios where the implementations
//! do not all pass (the full grid is the HTML page's).

use std::fmt::Write as _;

use super::{Matrix, score_text};
use crate::report::markdown::{code, text};
use crate::report::text::counted;
use crate::run::Verdict;

/// The Markdown for `matrix`.
pub fn render(matrix: &Matrix) -> String {
    let mut out = String::new();
    let header = |out: &mut String, first: &str| {
        let _ = write!(out, "| {first} |");
        for column in &matrix.columns {
            let _ = write!(out, " {} {} |", text(&column.label), text(&column.version));
        }
        out.push_str("\n|:--|");
        out.push_str(&"--:|".repeat(matrix.columns.len()));
        out.push('\n');
    };
    header(&mut out, "level");
    for level in matrix.levels() {
        let _ = write!(out, "| {} |", level.as_str());
        for column in &matrix.columns {
            let _ = write!(out, " {} |", score_text(column.summary.levels.get(&level)));
        }
        out.push('\n');
    }
    out.push_str("| safety profile |");
    for column in &matrix.columns {
        let _ = write!(out, " {} |", score_text(Some(&column.safety)));
    }
    out.push('\n');
    for verdict in [Verdict::Xfail, Verdict::Skip] {
        let _ = write!(out, "| {} |", verdict.as_str());
        for column in &matrix.columns {
            let _ = write!(out, " {} |", column.summary.count(verdict));
        }
        out.push('\n');
    }
    out.push_str("| wall time |");
    for column in &matrix.columns {
        let _ = write!(out, " {:.1} s |", column.summary.duration.as_secs_f64());
    }
    out.push_str(
        "\n\nRequired scenarios passed by area, as the page's heatmap shows them \
         (– where none was judged: all skipped, none required, or not run):\n\n",
    );
    header(&mut out, "area");
    for area in matrix.areas() {
        let _ = write!(out, "| {} |", code(area));
        for column in &matrix.columns {
            let _ = write!(out, " {} |", column.heat(area).text());
        }
        out.push('\n');
    }
    differences(&mut out, matrix);
    out
}

fn differences(out: &mut String, matrix: &Matrix) {
    let rows: Vec<_> = matrix
        .rows
        .iter()
        .filter(|r| Matrix::not_passed_everywhere(r))
        .collect();
    let _ = writeln!(
        out,
        "\n{} of {} {} everywhere (✅ pass, ❌ fail, ⚠️ xfail: a listed difference, ➖ skip, ❗ xpass, 💥 crash/timeout/error, – not run):\n",
        rows.len(),
        counted(matrix.rows.len(), "scenario", "scenarios"),
        if rows.len() == 1 {
            "does not pass"
        } else {
            "do not pass"
        }
    );
    if rows.is_empty() {
        return;
    }
    let _ = write!(out, "| scenario | level |");
    for column in &matrix.columns {
        let _ = write!(out, " {} |", text(&column.label));
    }
    out.push_str("\n|:--|:--|");
    out.push_str(&":-:|".repeat(matrix.columns.len()));
    out.push('\n');
    for row in rows {
        let _ = write!(out, "| {} | {} |", code(&row.id), row.level.as_str());
        for cell in &row.cells {
            let mark = cell.as_ref().map_or("–", |c| mark(c.verdict));
            let _ = write!(out, " {mark} |");
        }
        out.push('\n');
    }
}

fn mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "✅",
        Verdict::Fail => "❌",
        Verdict::Xfail => "⚠️",
        Verdict::Xpass => "❗",
        Verdict::Skip => "➖",
        Verdict::Error | Verdict::Timeout | Verdict::Crash | Verdict::ProtocolError => "💥",
    }
}
