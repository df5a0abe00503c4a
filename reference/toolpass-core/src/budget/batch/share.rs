//! The arithmetic of the batch's cut: how the budget is shared out among
//! the slots (Qwen's `allocateTextBudget`) and how a slot is held to its
//! share (`fitText`).

use super::super::{slice_end, slice_start, units};

/// The separator between a header and its preview in [`fit_text`].
const HEADER_SEPARATOR: &str = "\n\n";

/// What stands in for the omitted middle in [`fit_text`].
const MIDDLE_MARKER: &str = "\n...\n";

/// Qwen's `allocateTextBudget`: max-min fair shares of `budget` over
/// `lengths`. Results not longer than an equal share keep their length, and
/// the rest is shared again among the others, until none fits; those get
/// the equal share, and the units left over go one each to the earliest of
/// them. So the longest results are cut first, ties share alike, and an
/// earlier result wins a tie's odd unit.
///
/// Qwen refilters every round (quadratic for a batch of long results);
/// fixing the shortest one at a time gives the same shares, since a share
/// only grows as results are fixed.
#[must_use]
pub fn allocate(lengths: &[usize], budget: usize) -> Vec<usize> {
    let mut shares = vec![0usize; lengths.len()];
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| lengths.get(i).copied().unwrap_or(0));
    let mut remaining = budget;
    let mut fixed = vec![false; lengths.len()];
    let mut active = lengths.len();
    for &i in &order {
        let len = lengths.get(i).copied().unwrap_or(0);
        if len > remaining / active {
            break;
        }
        if let (Some(share), Some(done)) = (shares.get_mut(i), fixed.get_mut(i)) {
            *share = len;
            *done = true;
        }
        remaining -= len;
        active -= 1;
    }
    if active == 0 {
        return shares;
    }
    let share = remaining / active;
    let mut extra = remaining - share * active;
    for (slot, _) in shares.iter_mut().zip(&fixed).filter(|(_, done)| !**done) {
        *slot = share + usize::from(extra > 0);
        extra = extra.saturating_sub(1);
    }
    shares
}

/// Qwen's `fitText`: `text` held to `max` units. A header saying it was cut
/// (naming `files`, the result's saved output, when there are any), a blank
/// line, then a fifth of the rest from the start, `\n...\n`, and four
/// fifths from the end; the header alone, cut, when there is no room after
/// it. Never over `max` units; never half a character.
#[must_use]
pub fn fit_text(text: &str, max: usize, files: Option<&[String]>) -> String {
    fit(text, units(text), max, files)
}

/// [`fit_text`] for a text whose length is known.
pub(super) fn fit(text: &str, text_units: usize, max: usize, files: Option<&[String]>) -> String {
    if text_units <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let header = match files {
        Some([file]) => format!("Tool output truncated. Persisted tool-output artifact: {file}"),
        Some(files) if !files.is_empty() => {
            let list: Vec<String> = files.iter().map(|f| format!("- {f}")).collect();
            format!(
                "Tool output truncated. Persisted tool-output artifacts:\n{}",
                list.join("\n")
            )
        }
        _ => "Tool output truncated.".to_owned(),
    };
    let header_units = units(&header);
    let Some(preview) = max
        .checked_sub(header_units + HEADER_SEPARATOR.len())
        .filter(|&p| p > 0)
    else {
        return slice_start(&header, max).to_owned();
    };
    if preview <= MIDDLE_MARKER.len() {
        return format!("{header}{HEADER_SEPARATOR}{}", slice_start(text, preview));
    }
    let content = preview - MIDDLE_MARKER.len();
    let head = content / 5;
    let tail = content - head;
    format!(
        "{header}{HEADER_SEPARATOR}{}{MIDDLE_MARKER}{}",
        slice_start(text, head),
        slice_end(text, tail)
    )
}
