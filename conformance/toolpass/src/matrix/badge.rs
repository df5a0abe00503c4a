//! A badge per implementation: the required score and the safety
//! profile's, with the skipped count beside them so a peer that skips most
//! of the suite does not look like one that passes it. Two forms of the
//! same [`Badge`]: a shields.io endpoint JSON
//! (<https://shields.io/badges/endpoint-badge>), which needs the file at a
//! public URL, and a static SVG ([`svg`]) that a README shows from the CI
//! artefacts or the repository itself, with no service in between.

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

/// The badge as a flat SVG of shields.io's shape: the label on grey, the
/// message on its colour. Text widths are estimated (`textLength` then
/// fits the text to them exactly), so no font is needed to draw it.
pub fn svg(badge: &Badge) -> String {
    use crate::report::junit::escape;
    const PAD: u32 = 10;
    let label_width = text_width(&badge.label) + PAD;
    let message_width = text_width(&badge.message) + PAD;
    let width = label_width + message_width;
    let colour = hex(badge.color);
    let label = escape(&badge.label, false);
    let message = escape(&badge.message, false);
    // Text is drawn at 10× and scaled down, as shields.io does, for
    // sub-pixel positions.
    let label_x = label_width * 5;
    let message_x = label_width * 10 + message_width * 5;
    let label_length = (label_width - PAD) * 10;
    let message_length = (message_width - PAD) * 10;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{label}: {message}">
<title>{label}: {message}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="{label_width}" height="20" fill="#555"/><rect x="{label_width}" width="{message_width}" height="20" fill="{colour}"/><rect width="{width}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">
<text x="{label_x}" y="140" transform="scale(.1)" textLength="{label_length}">{label}</text>
<text x="{message_x}" y="140" transform="scale(.1)" textLength="{message_length}">{message}</text>
</g>
</svg>
"##
    )
}

/// The width of `text` in pixels at 11px Verdana, near enough: narrow
/// letters, wide letters and the rest.
fn text_width(text: &str) -> u32 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | '·' => 4,
            'f' | 't' | 'r' | '/' | '(' | ')' | '-' => 5,
            'm' | 'w' | 'M' | 'W' | '%' => 10,
            _ => 7,
        })
        .sum()
}

/// shields.io's named colours as the SVG needs them.
fn hex(color: &str) -> &'static str {
    match color {
        "brightgreen" => "#4c1",
        "yellow" => "#dfb317",
        "red" => "#e05d44",
        _ => "#9f9f9f",
    }
}
