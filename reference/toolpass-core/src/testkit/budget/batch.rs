//! Models of the batch budget: `allocateTextBudget`, `fitText` and
//! `finalizeToolResponses`.

use std::collections::{HashMap, HashSet};

use super::{
    slice_end_without_broken_surrogate, slice_start_without_broken_surrogate, string, utf16,
};
use crate::budget::batch::{Entry, Field, Finalized};

/// What a batch model returns: the replaced slots' texts by (entry, part,
/// field), each entry's files, and the totals before and after.
pub type Finalize = (
    Vec<((usize, usize, Field), String)>,
    Vec<Option<Vec<String>>>,
    usize,
    usize,
);

/// `allocateTextBudget`, transcribed.
#[must_use]
pub fn model_allocate(lengths: &[usize], budget: usize) -> Vec<usize> {
    let mut allocations = vec![0; lengths.len()];
    let mut remaining = budget;
    let mut active: Vec<usize> = (0..lengths.len()).collect();
    while !active.is_empty() {
        let share = remaining / active.len();
        let fixed: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&i| lengths[i] <= share)
            .collect();
        if fixed.is_empty() {
            for &i in &active {
                allocations[i] = share;
            }
            let mut remainder = remaining - share * active.len();
            for &i in &active {
                if remainder == 0 {
                    break;
                }
                allocations[i] += 1;
                remainder -= 1;
            }
            break;
        }
        for &i in &fixed {
            allocations[i] = lengths[i];
            remaining -= lengths[i];
        }
        active.retain(|i| !fixed.contains(i));
    }
    allocations
}

/// `fitText`, transcribed.
#[must_use]
pub fn model_fit_text(text: &str, max_chars: usize, files: Option<&[String]>) -> String {
    let text = utf16(text);
    if text.len() <= max_chars {
        return string(&text);
    }
    if max_chars == 0 {
        return String::new();
    }
    let header = match files {
        Some(files) if !files.is_empty() => {
            if files.len() == 1 {
                format!(
                    "Tool output truncated. Persisted tool-output artifact: {}",
                    files[0]
                )
            } else {
                let list: Vec<String> = files.iter().map(|file| format!("- {file}")).collect();
                format!(
                    "Tool output truncated. Persisted tool-output artifacts:\n{}",
                    list.join("\n")
                )
            }
        }
        _ => "Tool output truncated.".to_owned(),
    };
    let header = utf16(&header);
    if header.len() >= max_chars {
        return string(slice_start_without_broken_surrogate(&header, max_chars));
    }
    let separator = utf16("\n\n");
    let marker = utf16("\n...\n");
    let preview_budget = max_chars as i128 - header.len() as i128 - separator.len() as i128;
    if preview_budget <= 0 {
        return string(slice_start_without_broken_surrogate(&header, max_chars));
    }
    let preview_budget = preview_budget as usize;
    let mut out = header.clone();
    out.extend(&separator);
    if preview_budget <= marker.len() {
        out.extend(slice_start_without_broken_surrogate(&text, preview_budget));
        return string(&out);
    }
    let content_budget = preview_budget - marker.len();
    let head_budget = content_budget / 5;
    let tail_budget = content_budget - head_budget;
    out.extend(slice_start_without_broken_surrogate(&text, head_budget));
    out.extend(&marker);
    out.extend(slice_end_without_broken_surrogate(&text, tail_budget));
    string(&out)
}

struct ModelSlot {
    entry: usize,
    part: usize,
    field: Field,
    text: String,
}

/// `normalizeToolResultCallId`, transcribed (Node's POSIX `basename`).
fn model_normalize(call_id: &str) -> Option<String> {
    let bytes = call_id.as_bytes();
    let mut end = bytes.len();
    while end > 0 && bytes[end - 1] == b'/' {
        end -= 1;
    }
    let start = bytes[..end]
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |i| i + 1);
    let safe = String::from_utf8_lossy(&bytes[start..end]).replace('\0', "_");
    if safe.is_empty() || safe == "." || safe == ".." {
        None
    } else {
        Some(safe)
    }
}

/// `finalizeToolResponses` without the diagnostics, transcribed. `persist`
/// is `persistAndTruncateToolResult` as far as the batch sees it: given
/// the persistence call id and the content, the file written or `None`.
/// Returns the replaced slots' texts by (entry, part, field), each entry's
/// files, and the totals before and after, or `None` when nothing changes.
pub fn model_finalize(
    entries: &[Entry<'_>],
    budget: usize,
    mut persist: impl FnMut(&str, &str) -> Option<String>,
) -> Option<Finalize> {
    if budget == 0 {
        return None;
    }
    let mut slots = Vec::new();
    for (entry_index, entry) in entries.iter().enumerate() {
        for (part_index, part) in entry.parts.iter().enumerate() {
            if let Some(text) = part.text {
                slots.push(ModelSlot {
                    entry: entry_index,
                    part: part_index,
                    field: Field::Text,
                    text: text.to_owned(),
                });
            }
            if let Some(output) = part.output
                && !utf16(output).is_empty()
            {
                slots.push(ModelSlot {
                    entry: entry_index,
                    part: part_index,
                    field: Field::Output,
                    text: output.to_owned(),
                });
            }
            if let Some(error) = part.error {
                slots.push(ModelSlot {
                    entry: entry_index,
                    part: part_index,
                    field: Field::Error,
                    text: error.to_owned(),
                });
            }
        }
    }
    let len = |s: &ModelSlot| utf16(&s.text).len();
    let total: usize = slots.iter().map(len).sum();
    if total <= budget {
        return None;
    }
    let allocations = model_allocate(&slots.iter().map(len).collect::<Vec<_>>(), budget);
    let mut entries_to_persist: Vec<usize> = Vec::new();
    for (index, slot) in slots.iter().enumerate() {
        if len(slot) > allocations[index] && !entries_to_persist.contains(&slot.entry) {
            entries_to_persist.push(slot.entry);
        }
    }
    let mut persisted: Vec<Option<Vec<String>>> = entries
        .iter()
        .map(|e| {
            e.persisted
                .map(|f| f.iter().map(|s| (*s).to_owned()).collect())
        })
        .collect();
    let normalized: Vec<Option<String>> =
        entries.iter().map(|e| model_normalize(e.call_id)).collect();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for id in normalized.iter().flatten() {
        *counts.entry(id.clone()).or_default() += 1;
    }
    let reserved: HashSet<String> = normalized.iter().flatten().cloned().collect();
    let mut used: HashSet<String> = HashSet::new();
    for &entry_index in &entries_to_persist {
        if persisted[entry_index].is_some() {
            continue;
        }
        let content: Vec<&str> = slots
            .iter()
            .filter(|s| s.entry == entry_index)
            .map(|s| s.text.as_str())
            .collect();
        let content = content.join("\n\n");
        let mut persistence_call_id = entries[entry_index].call_id.to_owned();
        if let Some(id) = &normalized[entry_index] {
            if counts[id] == 1 && !used.contains(id) {
                persistence_call_id = id.clone();
            } else {
                let mut suffix = 1;
                let mut candidate = format!("{id}-{suffix}");
                while reserved.contains(&candidate) || used.contains(&candidate) {
                    suffix += 1;
                    candidate = format!("{id}-{suffix}");
                }
                persistence_call_id = candidate;
            }
            used.insert(persistence_call_id.clone());
        }
        persisted[entry_index] = Some(
            persist(&persistence_call_id, &content)
                .into_iter()
                .collect(),
        );
    }
    let mut replaced = Vec::new();
    let mut after = 0;
    for (index, slot) in slots.iter().enumerate() {
        if len(slot) <= allocations[index] {
            after += len(slot);
            continue;
        }
        let text = model_fit_text(
            &slot.text,
            allocations[index],
            persisted[slot.entry].as_deref(),
        );
        after += utf16(&text).len();
        replaced.push(((slot.entry, slot.part, slot.field), text));
    }
    Some((replaced, persisted, total, after))
}

/// The fast plan and finish in the model's shape, with the same writer.
pub fn fast_finalize(
    entries: &[Entry<'_>],
    budget: usize,
    mut persist: impl FnMut(&str, &str) -> Option<String>,
) -> Option<Finalize> {
    let plan = crate::budget::plan_batch(entries, budget).cut()?;
    let written: Vec<Option<String>> = plan
        .spills()
        .iter()
        .map(|s| persist(&s.call_id, &s.text))
        .collect();
    let Finalized {
        replacements,
        persisted,
        report,
    } = plan.finish(&written);
    let replaced = replacements
        .into_iter()
        .map(|r| ((r.entry, r.part, r.field), r.text))
        .collect();
    Some((replaced, persisted, report.before, report.after))
}
