//! The matrix as one static HTML page: inline CSS, no script, no network
//! resource, so it can be opened from disk, attached to a CI run or served
//! as it is. Sections: the area × implementation heatmap ([`heatmap`]),
//! the scenarios whose verdicts differ ([`differ`]), the scores per level
//! and the safety profile's, the scores per area, every scenario ×
//! implementation (a failing cell links to its diff), and the failures'
//! full reports.

mod differ;
mod heatmap;

use std::fmt::Write as _;

use toolpass_scenario::Level;

use super::{Cell, Column, Matrix, Row, anchor, heat, score_text, slug};
use crate::report::Score;
use crate::report::junit::escape;
use crate::report::text::counted;
use crate::run::Verdict;

const STYLE: &str = "
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f6f8fa}
thead th{position:sticky;top:0;z-index:1;box-shadow:0 1px 0 #d0d7de}
tr.group th{background:#eaeef2;font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.35 ui-monospace,monospace}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;white-space:pre-wrap}
.pass{background:#dafbe1}.fail,.error,.timeout,.crash,.protocol_error{background:#ffebe9}
.xfail{background:#fff8c5}.xpass{background:#fbefff}.skip,.none{background:#f6f8fa;color:#57606a}
td a{color:inherit}
.legend span{display:inline-block;padding:0 .5em;margin-right:.3em;border:1px solid #d0d7de}
nav a{margin-right:1em}
figure.heat{margin:1em 0;overflow-x:auto}
figure.heat svg{display:block;font:13px system-ui,sans-serif}
figure.heat text{fill:#1b1f24}
figure.heat text.head{font-weight:600}figure.heat text.ver{fill:#57606a;font-size:12px}
figure.heat text.count{font-weight:600;font-variant-numeric:tabular-nums}
figure.heat text.share{font-variant-numeric:tabular-nums}
figure.heat text.light{fill:#fff}
figure.heat a:hover rect,figure.heat a:focus rect{stroke:#0969da;stroke-width:2}
figcaption{max-width:60em;color:#57606a;margin-top:.4em}
figcaption .legend{display:block;margin-top:.3em}
";

/// The whole page.
pub fn render(matrix: &Matrix) -> String {
    let mut out =
        String::from("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>toolpass conformance matrix</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<h1>toolpass conformance matrix</h1>\n");
    let _ = writeln!(
        out,
        "<p>{} × {}, from {}.</p>",
        counted(matrix.rows.len(), "scenario", "scenarios"),
        counted(matrix.columns.len(), "implementation", "implementations"),
        matrix
            .columns
            .iter()
            .map(|c| format!("<code>{}</code>", escape(&c.file, false)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.push_str(
        "<nav><a href=\"#differ\">Where they differ</a><a href=\"#scores\">Scores</a>\
         <a href=\"#areas\">By area</a><a href=\"#scenarios\">All scenarios</a>\
         <a href=\"#failures\">What did not pass</a></nav>\n",
    );
    let differing: Vec<&Row> = matrix
        .rows
        .iter()
        .filter(|r| Matrix::verdicts_differ(r))
        .collect();
    let areas_differing = differing.iter().map(|r| r.area.as_str()).collect();
    heatmap::render(&mut out, matrix, &areas_differing);
    differ::render(&mut out, matrix, &differing);
    scores(&mut out, matrix);
    areas(&mut out, matrix);
    scenarios(&mut out, matrix);
    failures(&mut out, matrix);
    out.push_str("</body>\n</html>\n");
    out
}

/// A `<thead>` (sticky while its table scrolls by) naming each column.
fn header_row(out: &mut String, first: &str, matrix: &Matrix) {
    let _ = write!(out, "<thead><tr><th>{first}</th>");
    for column in &matrix.columns {
        let _ = write!(
            out,
            "<th title=\"{}\">{}<br><small>{}</small></th>",
            escape(&column.file, true),
            escape(&column.label, false),
            escape(&column.version, false)
        );
    }
    out.push_str("</tr></thead>\n");
}

fn scores(out: &mut String, matrix: &Matrix) {
    out.push_str("<h2 id=\"scores\">Scores</h2>\n<p>Scenarios whose steps at a level all passed, of those scored at it (skipped and pending ones aside).</p>\n<table>\n");
    header_row(out, "level", matrix);
    for level in matrix.levels() {
        let _ = write!(out, "<tr><th>{}</th>", level.as_str());
        for column in &matrix.columns {
            score_cell(out, column.summary.levels.get(&level));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><th title=\"scenarios tagged safety: what every tool layer must guarantee, whatever its design\">safety profile</th>");
    for column in &matrix.columns {
        score_cell(out, Some(&column.safety));
    }
    out.push_str("</tr>\n");
    for verdict in [Verdict::Xfail, Verdict::Skip] {
        let _ = write!(out, "<tr><th>{}</th>", verdict.as_str());
        for column in &matrix.columns {
            let _ = write!(
                out,
                "<td class=\"n\">{}</td>",
                column.summary.count(verdict)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><th>pending (not scored)</th>");
    for column in &matrix.columns {
        let _ = write!(out, "<td class=\"n\">{}</td>", column.summary.pending);
    }
    out.push_str("</tr>\n<tr><th>wall time</th>");
    for column in &matrix.columns {
        let _ = write!(
            out,
            "<td class=\"n\">{:.2} s</td>",
            column.summary.duration.as_secs_f64()
        );
    }
    out.push_str("</tr>\n</table>\n");
}

/// `passed/total (percent)`, or `–` when nothing was scored; the percent
/// rounded down, as the heatmap's.
fn score_cell(out: &mut String, score: Option<&Score>) {
    let percent = score
        .filter(|s| s.total > 0)
        .map(|s| format!(" <small>({} %)</small>", heat::percent(*s)))
        .unwrap_or_default();
    let _ = write!(out, "<td class=\"n\">{}{percent}</td>", score_text(score));
}

fn areas(out: &mut String, matrix: &Matrix) {
    out.push_str("<h2 id=\"areas\">By area</h2>\n<p>The heatmap as a table: required passed (share), then recommended passed/scored.</p>\n<table>\n");
    header_row(out, "area", matrix);
    for area in matrix.areas() {
        let _ = write!(out, "<tr><th>{}</th>", escape(area, false));
        for column in &matrix.columns {
            let recommended = column
                .areas
                .get(area)
                .and_then(|s| s.levels.get(&Level::Recommended));
            let _ = write!(
                out,
                "<td class=\"n\" title=\"{}\">{} · {}</td>",
                escape(&column.heat(area).describe("required"), true),
                column.heat(area).text(),
                score_text(recommended)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn scenarios(out: &mut String, matrix: &Matrix) {
    out.push_str("<h2 id=\"scenarios\">All scenarios</h2>\n");
    let rows: Vec<&Row> = matrix.rows.iter().collect();
    grid(out, matrix, &rows, "area", true);
}

/// A scenario × implementation table of `rows` (sorted by id), under a
/// verdict legend, with a row heading each area; `prefix` makes the area
/// rows' ids (`PREFIX_area`) unique to the table. Only one table on the
/// page gives its rows `row_ids` (`row_scenario`, where each failure's
/// report links back to). The `_` keeps these ids apart from a failure's
/// anchor ([`anchor`]): a slug never has one.
fn grid(out: &mut String, matrix: &Matrix, rows: &[&Row], prefix: &str, row_ids: bool) {
    out.push_str("<p class=\"legend\">");
    for verdict in Verdict::ALL {
        let _ = write!(out, "<span class=\"{0}\">{0}</span>", verdict.as_str());
    }
    out.push_str("<span class=\"none\">– not run</span></p>\n<table>\n");
    let _ = write!(out, "<thead><tr><th>scenario</th><th>level</th>");
    for column in &matrix.columns {
        let _ = write!(out, "<th>{}</th>", escape(&column.label, false));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut area = None;
    for row in rows {
        if area != Some(row.area.as_str()) {
            area = Some(row.area.as_str());
            let _ = writeln!(
                out,
                "<tr class=\"group\" id=\"{prefix}_{}\"><th colspan=\"{}\">{}</th></tr>",
                slug(&row.area),
                matrix.columns.len() + 2,
                escape(&row.area, false)
            );
        }
        let id = if row_ids {
            format!(" id=\"{}\"", row_anchor(&row.id))
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<tr{id}><td title=\"{}\"><code>{}</code></td><td>{}</td>",
            escape(&format!("{}\n{}", row.title, row.spec), true),
            escape(&row.id, false),
            row.level.as_str()
        );
        for (column, cell) in matrix.columns.iter().zip(&row.cells) {
            out.push_str(&cell_html(column, row, cell.as_ref()));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn cell_html(column: &Column, row: &Row, cell: Option<&Cell>) -> String {
    let Some(cell) = cell else {
        return "<td class=\"none\">–</td>".to_owned();
    };
    let verdict = cell.verdict.as_str();
    if cell.detail.is_empty() {
        return format!(
            "<td class=\"{verdict}\" title=\"{}\">{verdict}</td>",
            escape(&cell.headline, true)
        );
    }
    format!(
        "<td class=\"{verdict}\" title=\"{}\"><a href=\"#{}\">{verdict}</a></td>",
        escape(&cell.headline, true),
        anchor(column, &row.id)
    )
}

fn failures(out: &mut String, matrix: &Matrix) {
    out.push_str("<h2 id=\"failures\">What did not pass</h2>\n");
    for (index, column) in matrix.columns.iter().enumerate() {
        let _ = writeln!(out, "<h3>{}</h3>", escape(&column.label, false));
        let mut any = false;
        for row in &matrix.rows {
            let Some(cell) = row.cells[index].as_ref().filter(|c| !c.detail.is_empty()) else {
                continue;
            };
            any = true;
            let _ = writeln!(
                out,
                "<section id=\"{}\"><p><a href=\"#{}\">↑</a> <code>{}</code> <span class=\"{}\">{}</span></p>\n<pre>{}</pre></section>",
                anchor(column, &row.id),
                row_anchor(&row.id),
                escape(&row.id, false),
                cell.verdict.as_str(),
                cell.verdict.as_str(),
                escape(&cell.detail, false)
            );
        }
        if !any {
            out.push_str("<p>Everything it ran passed.</p>\n");
        }
    }
}

/// The id of a scenario's row in the full grid.
fn row_anchor(id: &str) -> String {
    format!("row_{}", slug(id))
}
