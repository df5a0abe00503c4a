//! "Where they differ": only the scenarios the implementations gave
//! different verdicts ([`Matrix::verdicts_differ`]: skips and scenarios a
//! run did not select left out), grouped by area, each failing cell a link
//! to its report as in the full grid. A separate section rather than a
//! filter of the grid, so it needs no script and no `:checked` trick.

use std::fmt::Write as _;

use super::super::{Matrix, Row, slug};
use crate::report::text::counted;

/// The prefix of this section's area rows' ids.
const PREFIX: &str = "differ";

/// The id of `area`'s heading row in this section (the heatmap's cells
/// link there).
pub(super) fn area_anchor(area: &str) -> String {
    format!("{PREFIX}_{}", slug(area))
}

/// The section, over `rows`: the rows whose verdicts differ.
pub(super) fn render(out: &mut String, matrix: &Matrix, rows: &[&Row]) {
    out.push_str("<h2 id=\"differ\">Where they differ</h2>\n");
    if matrix.columns.len() < 2 {
        out.push_str("<p>One implementation: nothing to compare.</p>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<p>{} of {}: the implementations that judged {} did not all give one verdict \
         (a skip, or a scenario a run did not select, is left out here: it says what an \
         implementation offers, not how it behaves; the scores count skips).</p>",
        rows.len(),
        counted(matrix.rows.len(), "scenario", "scenarios"),
        if rows.len() == 1 { "it" } else { "each" }
    );
    if rows.is_empty() {
        return;
    }
    super::grid(out, matrix, rows, PREFIX, false);
}
