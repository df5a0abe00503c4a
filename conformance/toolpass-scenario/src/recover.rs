//! Every problem of a scenario that does not deserialize, not only the
//! first: serde stops at the first unknown key or wrong type, so the
//! loader blanks the step (or top-level entry) holding that problem and
//! reads the file again, one problem per round, until the rest reads.
//!
//! Blanking keeps every line where it was (the lines are emptied, not
//! removed), so each later problem keeps its own `line:column`. A step is
//! replaced by an empty `expect_files` and a required top-level key by a
//! stand-in value, so that removing it causes no problem of its own. A
//! round whose problem is one the blanking made (a syntax error, a position
//! inside a blanked region) ends the search rather than reporting it.

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::{Options, Spanned};

use crate::located::Pos;
use crate::scenario::Scenario;

/// Rounds of reading again at most: each reads the whole file, and a file
/// with more broken steps than this has its first ones fixed first anyway.
const MAX_ROUNDS: usize = 50;

/// A problem: where, and what.
pub(crate) type Found = (Pos, String);

/// What reading a broken scenario again found.
pub(crate) struct Recovered {
    /// Every problem found, the first one included.
    pub(crate) problems: Vec<Found>,
    /// The scenario as read once its broken parts were blanked, and the
    /// first line blanked: what lies above it was read as written.
    pub(crate) rest: Option<(Scenario, u32)>,
}

/// The lines (1-based, inclusive) of one step or top-level entry, and what
/// its first line becomes when it is blanked.
#[derive(Debug, Clone)]
struct Region {
    first: usize,
    last: usize,
    stand_in: String,
    is_step: bool,
}

/// Reads `text` again and again, blanking the region of each problem,
/// starting from the `first` problem the typed read reported.
pub(crate) fn recover(
    text: &str,
    options: &Options,
    first: Found,
    read: impl Fn(&str) -> Result<Scenario, Found>,
) -> Recovered {
    let mut problems = vec![first.clone()];
    let Some(regions) = regions(text, options) else {
        // Not even an outline reads: a syntax error, reported as it is.
        return Recovered {
            problems,
            rest: None,
        };
    };
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let mut blanked: Vec<&Region> = Vec::new();
    let mut at = first.0;
    while blanked.len() < MAX_ROUNDS
        && let Some(region) = region_of(&regions, at, &blanked)
    {
        blank(&mut lines, region);
        blanked.push(region);
        let edited = lines.join("\n");
        let first_blanked = blanked
            .iter()
            .map(|r| r.first)
            .min()
            .unwrap_or(region.first);
        match read(&edited) {
            Ok(scenario) => {
                let line = u32::try_from(first_blanked).unwrap_or(u32::MAX);
                return Recovered {
                    problems,
                    rest: Some((scenario, line)),
                };
            }
            Err(found) => {
                let made_by_blanking = parse_outline::<IgnoredAny>(&edited, options).is_none()
                    || blanked.iter().any(|r| contains(r, found.0));
                if made_by_blanking || !found.0.is_known() {
                    break;
                }
                at = found.0;
                problems.push(found);
            }
        }
    }
    Recovered {
        problems,
        rest: None,
    }
}

/// The innermost region holding `pos` (a step before its `steps` entry)
/// that is not blanked yet.
fn region_of<'r>(regions: &'r [Region], pos: Pos, blanked: &[&Region]) -> Option<&'r Region> {
    if !pos.is_known() {
        return None;
    }
    let holding = |r: &&Region| contains(r, pos) && !blanked.iter().any(|b| std::ptr::eq(*b, *r));
    regions
        .iter()
        .filter(|r| r.is_step)
        .find(holding)
        .or_else(|| regions.iter().filter(|r| !r.is_step).find(holding))
}

fn contains(region: &Region, pos: Pos) -> bool {
    let line = pos.line as usize;
    (region.first..=region.last).contains(&line)
}

fn blank(lines: &mut [String], region: &Region) {
    for (i, line) in lines.iter_mut().enumerate() {
        let number = i + 1;
        if number == region.first {
            line.clone_from(&region.stand_in);
        } else if (region.first..=region.last).contains(&number) {
            line.clear();
        }
    }
}

/// The file's top-level keys and `steps` items, by line.
#[derive(Deserialize)]
struct Steps {
    #[serde(default)]
    steps: Option<Vec<Spanned<IgnoredAny>>>,
}

fn parse_outline<T: for<'de> Deserialize<'de>>(text: &str, options: &Options) -> Option<T> {
    serde_saphyr::from_str_with_options::<T>(text, options.clone()).ok()
}

/// The regions of `text`: one per top-level entry, one per item of a
/// block-style `steps` list; `None` when the file has no such outline.
fn regions(text: &str, options: &Options) -> Option<Vec<Region>> {
    let top: HashMap<Spanned<String>, IgnoredAny> = parse_outline(text, options)?;
    let steps = parse_outline::<Steps>(text, options)?
        .steps
        .unwrap_or_default();
    let lines: Vec<&str> = text.split('\n').collect();
    let end = lines.len();
    let mut keys: Vec<(usize, usize, String)> = top
        .keys()
        .map(|k| {
            let line = usize::try_from(k.referenced.line()).unwrap_or(0);
            let column = usize::try_from(k.referenced.column()).unwrap_or(0);
            (line, column, k.value.clone())
        })
        .collect();
    keys.sort();
    // Two keys on one line: a flow mapping, which lines cannot take apart.
    if keys.windows(2).any(|w| matches!(w, [a, b] if a.0 == b.0)) || keys.iter().any(|k| k.0 == 0) {
        return None;
    }
    let next_key_after = |line: usize| {
        keys.iter()
            .map(|k| k.0)
            .find(|&l| l > line)
            .unwrap_or(end + 1)
    };
    let mut regions = Vec::new();
    for (line, column, key) in &keys {
        let indent = " ".repeat(column.saturating_sub(1));
        let stand_in = match key.as_str() {
            // Required keys get a value that reads, so blanking one is no
            // problem of its own.
            "title" | "spec" => format!("{indent}{key}: \"-\""),
            "steps" => format!("{indent}steps: [{{expect_files: {{}}}}]"),
            _ => String::new(),
        };
        regions.push(Region {
            first: *line,
            last: next_key_after(*line) - 1,
            stand_in,
            is_step: false,
        });
    }
    let mut starts: Vec<usize> = steps
        .iter()
        .map(|s| usize::try_from(s.referenced.line()).unwrap_or(0))
        .collect();
    starts.sort_unstable();
    let steps_line = keys.iter().find(|k| k.2 == "steps").map_or(0, |k| k.0);
    let block_style = starts.iter().all(|&l| l > steps_line)
        && starts.windows(2).all(|w| matches!(w, [a, b] if a < b));
    if block_style {
        for (i, &first) in starts.iter().enumerate() {
            let next = starts.get(i + 1).copied().unwrap_or(usize::MAX);
            let last = next.min(next_key_after(first)) - 1;
            let line = first
                .checked_sub(1)
                .and_then(|i| lines.get(i))
                .copied()
                .unwrap_or_default();
            // The item's `- ` and what precedes it stay: the stand-in is
            // an item of the same list.
            let Some((before, _)) = line.split_once("- ") else {
                continue;
            };
            regions.push(Region {
                first,
                last,
                stand_in: format!("{before}- expect_files: {{}}"),
                is_step: true,
            });
        }
    }
    Some(regions)
}
