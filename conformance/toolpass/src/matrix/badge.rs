//! A shields.io endpoint badge per implementation
//! (<https://shields.io/badges/endpoint-badge>): the required score and the
//! safety profile's, with the skipped count beside them so a peer that skips most of the suite does
//! not look like one that passes it.

use serde::Serialize;
use toolpass_scenario::Level;

use super::Column;
use crate::run::Verdict;

/// The endpoint JSON shields.io reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Badge {
    /// Always 1.
    pub schema_version: u8,
    /// The left-hand text.
    pub label: String,
    /// The right-hand text.
    pub message: String,
    /// The right-hand colour.
    pub color: &'static str,
}

/// The badge of one column.
pub fn badge(column: &Column) -> Badge {
    let score = column
        .summary
        .levels
        .get(&Level::Required)
        .copied()
        .unwrap_or_default();
    let skipped = column.summary.count(Verdict::Skip);
    let mut message = format!("{}/{} required", score.passed, score.total);
    let safety = column.safety;
    if safety.total > 0 {
        message.push_str(&format!(", safety {}/{}", safety.passed, safety.total));
    }
    if skipped > 0 {
        message.push_str(&format!(", {skipped} skipped"));
    }
    let color = if score.total == 0 {
        "lightgrey"
    } else if score.passed == score.total {
        "brightgreen"
    } else if score.passed * 10 >= score.total * 9 {
        "yellow"
    } else {
        "red"
    };
    Badge {
        schema_version: 1,
        label: format!("toolpass · {}", column.label),
        message,
        color,
    }
}
