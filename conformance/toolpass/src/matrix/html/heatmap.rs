//! The page's first picture: area × implementation as inline SVG, each
//! cell the share of required scenarios passed ([`AreaCell`]), written as
//! numbers (`37/40`, `92 %`) over a colour, so it reads without colour and
//! in greyscale too: the bands grow darker as the share falls (lightness,
//! not hue, carries the order), and a cell with nothing judged is hatched
//! grey with `–`. Two rows above the areas give each implementation's
//! whole required score and its safety profile's side by side.
//!
//! Every cell has a `<title>` (the tooltip) and an `aria-label`; the "By
//! area" table below is the same numbers as a table. A cell of an area
//! with scenarios whose verdicts differ links to them in "Where they
//! differ".

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::super::heat::{AreaCell, percent};
use super::super::{Column, Matrix};
use crate::report::Score;
use crate::report::junit::escape;

/// The colour bands: the lowest whole percent each starts at, its fill,
/// and whether its text is white (the two darkest).
const BANDS: [(usize, &str, bool); 6] = [
    (100, "#d9f0d3", false),
    (90, "#fee391", false),
    (75, "#fec44f", false),
    (50, "#fe9929", false),
    (25, "#cc4c02", true),
    (0, "#8c2d04", true),
];

/// The hatched grey of a cell with nothing judged (an SVG pattern's id).
const NONE: &str = "heat-none";

const ROW: usize = 26;
const GAP: usize = 2;
const HEAD: usize = 42;
/// The gap between the two whole-run rows and the areas.
const BREAK: usize = 10;

/// A rough width of `text` in the page's 13 px sans-serif: SVG text does
/// not wrap or size its box, so the columns are made wide enough for
/// their longest line.
fn width(text: &str, per_char: f64) -> usize {
    (text.chars().count() as f64 * per_char).ceil() as usize
}

/// The area × implementation heatmap, with its legend. `differing` are
/// the areas with rows in "Where they differ" (their cells link there).
pub(super) fn render(out: &mut String, matrix: &Matrix, differing: &BTreeSet<&str>) {
    let areas = matrix.areas();
    let label_w = areas
        .iter()
        .copied()
        .chain(["required, all areas", "safety profile"])
        .map(|a| width(a, 7.4) + 16)
        .max()
        .unwrap_or(0);
    let col_w = matrix
        .columns
        .iter()
        .map(|c| width(&c.label, 8.2).max(width(&c.version, 7.0)) + 16)
        .max()
        .unwrap_or(0)
        .max(116);
    let total_w = label_w + matrix.columns.len() * (col_w + GAP);
    let total_h = HEAD + (2 + areas.len()) * (ROW + GAP) + BREAK;
    let _ = write!(
        out,
        "<figure class=\"heat\">\n<svg role=\"group\" aria-labelledby=\"heat-caption\" \
         width=\"{total_w}\" height=\"{total_h}\" viewBox=\"0 0 {total_w} {total_h}\">\n\
         <defs><pattern id=\"{NONE}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f6f8fa\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d0d7de\" stroke-width=\"2\"/>\
         </pattern></defs>\n"
    );
    for (index, column) in matrix.columns.iter().enumerate() {
        let x = label_w + index * (col_w + GAP) + col_w / 2;
        let _ = writeln!(
            out,
            "<text class=\"head\" x=\"{x}\" y=\"17\" text-anchor=\"middle\">{}</text>\
             <text class=\"ver\" x=\"{x}\" y=\"34\" text-anchor=\"middle\">{}</text>",
            escape(&column.label, false),
            escape(&column.version, false)
        );
    }
    let mut y = HEAD;
    let whole = |score: fn(&Column) -> Score| -> Vec<AreaCell> {
        let cell = |c: &Column| AreaCell::of_score(score(c));
        matrix.columns.iter().map(cell).collect()
    };
    let whole = [
        ("required, all areas", "required", whole(Column::required)),
        ("safety profile", "safety", whole(|c| c.safety)),
    ];
    for (name, kind, cells) in whole {
        row_label(out, y, name, true);
        for (index, (column, cell)) in matrix.columns.iter().zip(cells).enumerate() {
            let x = label_w + index * (col_w + GAP);
            let what = format!("{name}, {}: {}", column.label, cell.describe(kind));
            draw(out, (x, y, col_w), cell, &what, None);
        }
        y += ROW + GAP;
    }
    y += BREAK;
    for area in areas {
        row_label(out, y, area, false);
        let link = differing
            .contains(area)
            .then(|| super::differ::area_anchor(area));
        for (index, column) in matrix.columns.iter().enumerate() {
            let x = label_w + index * (col_w + GAP);
            let cell = column.heat(area);
            let what = format!("{area}, {}: {}", column.label, cell.describe("required"));
            draw(out, (x, y, col_w), cell, &what, link.as_deref());
        }
        y += ROW + GAP;
    }
    out.push_str("</svg>\n<figcaption id=\"heat-caption\">Required scenarios passed, by area and implementation \
                  (recommended ones do not count; an expected failure counts as not passed; percentages are \
                  rounded down, so only a full pass reads 100 %). ");
    legend(out);
    out.push_str("</figcaption>\n</figure>\n");
}

fn row_label(out: &mut String, y: usize, text: &str, bold: bool) {
    let class = if bold { "head" } else { "area" };
    let _ = writeln!(
        out,
        "<text class=\"{class}\" x=\"4\" y=\"{}\">{}</text>",
        y + ROW / 2 + 5,
        escape(text, false)
    );
}

/// One cell at `(x, y, width)`: its rectangle, its numbers and its words.
fn draw(
    out: &mut String,
    (x, y, w): (usize, usize, usize),
    cell: AreaCell,
    what: &str,
    link: Option<&str>,
) {
    let (fill, light) = match cell.score() {
        Some(score) => {
            let (fill, light) = band(percent(score));
            (fill.to_owned(), light)
        }
        None => (format!("url(#{NONE})"), false),
    };
    let what = escape(what, true);
    if let Some(link) = link {
        let _ = write!(out, "<a href=\"#{link}\">");
    }
    let text = if light { " light" } else { "" };
    let (count, share) = cell.lines();
    let baseline = y + ROW / 2 + 5;
    let _ = write!(
        out,
        "<g class=\"cell\" role=\"img\" aria-label=\"{what}\"><title>{what}</title>\
         <rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{ROW}\" fill=\"{fill}\"/>\
         <text class=\"count{text}\" x=\"{}\" y=\"{baseline}\">{count}</text>\
         <text class=\"share{text}\" x=\"{}\" y=\"{baseline}\" text-anchor=\"end\">{share}</text></g>",
        x + 8,
        x + w - 8,
    );
    if link.is_some() {
        out.push_str("</a>");
    }
    out.push('\n');
}

/// The fill of a share (whole percent) and whether its text is white.
fn band(share: usize) -> (&'static str, bool) {
    let (_, fill, light) = BANDS
        .into_iter()
        .find(|(min, ..)| share >= *min)
        // The last band starts at 0: every share finds one.
        .unwrap_or(BANDS[BANDS.len() - 1]);
    (fill, light)
}

fn legend(out: &mut String) {
    out.push_str("<span class=\"legend\">");
    let mut upper = None;
    for (min, fill, light) in BANDS {
        let range = match upper {
            None => format!("{min} %"),
            Some(upper) => format!("{min}–{} %", upper - 1),
        };
        upper = Some(min);
        let colour = if light { ";color:#fff" } else { "" };
        let _ = write!(
            out,
            "<span style=\"background:{fill}{colour}\">{range}</span>"
        );
    }
    out.push_str("<span class=\"none\">– none judged</span></span>");
}

#[cfg(test)]
mod tests {
    use super::band;

    #[test]
    fn each_share_has_its_band_and_the_two_darkest_white_text() {
        assert_eq!(band(100), ("#d9f0d3", false));
        assert_eq!(band(99), ("#fee391", false));
        assert_eq!(band(75), ("#fec44f", false));
        assert_eq!(band(74), ("#fe9929", false));
        assert_eq!(band(49), ("#cc4c02", true));
        assert_eq!(band(0), ("#8c2d04", true));
    }
}
