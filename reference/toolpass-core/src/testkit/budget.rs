//! Models of the three output gates, transcribed from Qwen Code 0.24.4 over
//! UTF-16 units as JavaScript runs them: `allocateTextBudget`'s rounds of
//! `filter`, `fitText` and its surrogate-safe slices, `finalizeToolResponses`
//! with its `Set`s and `Map`s, `maybePersistLargeToolResult`,
//! `generatePreview` and `buildStub`, and `truncateLlmContent` up to the
//! cut. Also the batch bench's naive baseline.
//!
//! The one change is the crate's: where `generatePreview`'s `slice(0, 2000)`
//! keeps half of a surrogate pair (and no newline cuts it off), the model
//! drops the half, as the fast code does.

use std::collections::{HashMap, HashSet};

use crate::budget::batch::{Entry, Field, Finalized};
use crate::budget::per_tool::{Content, ContentPart, LlmText};
use crate::budget::persist::{Gate, GateSkip, PersistTarget};
use crate::fold::is_js_whitespace;
use crate::truncate::TOOL_OUTPUT_TRUNCATED_PREFIX;

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// The models never split a surrogate pair, so this is never lossy; the
/// properties would catch a U+FFFD that is not in the input.
fn string(units: &[u16]) -> String {
    String::from_utf16_lossy(units)
}

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

fn slice_start_without_broken_surrogate(text: &[u16], length: usize) -> &[u16] {
    let mut end = length.min(text.len());
    if end > 0 && (0xD800..=0xDBFF).contains(&text[end - 1]) {
        end -= 1;
    }
    &text[..end]
}

fn slice_end_without_broken_surrogate(text: &[u16], length: usize) -> &[u16] {
    let mut start = text.len().saturating_sub(length);
    if start < text.len() && (0xDC00..=0xDFFF).contains(&text[start]) {
        start += 1;
    }
    &text[start..]
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
    let plan = crate::budget::plan_batch(entries, budget)?;
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

/// `maybePersistLargeToolResult`'s decision, transcribed. `threshold` 0 is
/// infinite, as Qwen's config reads a threshold that is not positive.
#[must_use]
pub fn model_persist_gate(
    tool: &str,
    text: &str,
    output_budget_applied: bool,
    threshold: usize,
) -> Gate {
    if output_budget_applied {
        return Gate::Pass(GateSkip::OutputBudgetApplied);
    }
    if ["exec", "read_file", "read_mcp_resource", "enter_plan_mode"].contains(&tool) {
        return Gate::Pass(GateSkip::Exempt);
    }
    if text.is_empty() {
        return Gate::Pass(GateSkip::Empty);
    }
    if text.contains("... [CONTENT TRUNCATED] ...") || text.starts_with("<persisted-output>") {
        return Gate::Pass(GateSkip::AlreadyTruncated);
    }
    let gate = if threshold == 0 {
        f64::INFINITY
    } else {
        threshold as f64 + 3000.0
    };
    if utf16(text).len() as f64 <= gate {
        return Gate::Pass(GateSkip::WithinThreshold);
    }
    Gate::Persist
}

/// `generatePreview`, transcribed (with the crate's surrogate rule).
#[must_use]
pub fn model_preview(content: &str) -> String {
    let units = utf16(content);
    let text = if units.len() <= 2000 {
        units
    } else {
        let slice = slice_start_without_broken_surrogate(&units, 2000);
        let last_newline = slice.iter().rposition(|&u| u == 0x0A);
        let mut kept = match last_newline {
            Some(i) if i > 0 => slice[..i].to_vec(),
            _ => slice.to_vec(),
        };
        kept.extend(utf16("\n..."));
        kept
    };
    let mut text = string(&text);
    // The regexes' `m.slice(1, -1)`, written out.
    for (tag, escaped) in [
        ("</persisted-output>", "&lt;/persisted-output&gt;"),
        ("<persisted-output>", "&lt;persisted-output&gt;"),
        ("</system-reminder>", "&lt;/system-reminder&gt;"),
        ("<system-reminder>", "&lt;system-reminder&gt;"),
    ] {
        text = text.replace(tag, escaped);
    }
    text
}

/// `buildStub`, transcribed.
#[must_use]
pub fn model_stub(content: &str, sha256_hex: &str, target: PersistTarget<'_>) -> String {
    let preview = model_preview(content);
    let size_kb = (content.len() as f64 / 1024.0 + 0.5).floor() as u64;
    match target {
        PersistTarget::File(path) => format!(
            "<persisted-output>\nOutput too large ({size_kb} KB). Full output saved to: {path}\nFull output sha256: {sha256_hex}\nNote: this file may be cleaned up after 24 hours.\nTo read the complete output, use the read_file tool with the absolute file path above.\n\nPreview (up to 2000 chars):\n{preview}\n</persisted-output>"
        ),
        PersistTarget::Note(note) => format!(
            "Output too large ({size_kb} KB). {}\nFull output sha256: {sha256_hex}\n\nPreview (up to 2000 chars):\n{preview}",
            note.text()
        ),
    }
}

/// `truncateLlmContent` up to the cut, transcribed.
#[must_use]
pub fn model_llm_text<'a>(tool_name: &str, content: Content<'a>) -> LlmText<'a> {
    let blank = |s: &str| s.chars().all(is_js_whitespace);
    match content {
        Content::Text(text) => {
            if blank(text) {
                return LlmText::NoOutput(format!("({tool_name} completed with no output)"));
            }
            if text.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX) {
                return LlmText::AlreadyTruncated;
            }
            LlmText::Cut {
                text: text.into(),
                media: 0,
            }
        }
        Content::Parts(parts) => {
            let text_parts: Vec<&str> = parts
                .iter()
                .filter_map(|p| {
                    if let ContentPart::Text(t) = p {
                        Some(*t)
                    } else {
                        None
                    }
                })
                .collect();
            let media = parts.len() - text_parts.len();
            let combined = text_parts.join("\n");
            if blank(&combined) && media == 0 {
                return LlmText::NoOutput(format!("({tool_name} completed with no output)"));
            }
            if text_parts
                .iter()
                .any(|t| t.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX))
            {
                return LlmText::AlreadyTruncated;
            }
            LlmText::Cut {
                text: combined.into(),
                media,
            }
        }
    }
}

/// The writer the properties use: a file named after the call id, or no
/// file when the id asks for a failure (`!` in it).
fn test_writer(call_id: &str, _content: &str) -> Option<String> {
    (!call_id.contains('!')).then(|| format!("/spill/{call_id}.txt"))
}

/// The batch property: the fast plan agrees with the model, the total after
/// is within the budget, and every replacement is whole characters.
pub fn check_batch(entries: &[Entry<'_>], budget: usize) -> Result<(), String> {
    let fast = fast_finalize(entries, budget, test_writer);
    let model = model_finalize(entries, budget, test_writer);
    if fast != model {
        return Err(format!("budget {budget}: fast {fast:?} != model {model:?}"));
    }
    if let Some((_, _, _, after)) = fast
        && after > budget
    {
        return Err(format!("after {after} is over the budget {budget}"));
    }
    Ok(())
}

/// The single-text properties: `fitText`, the preview and the stub agree
/// with their models.
pub fn check_texts(text: &str, max: usize, files: &[String]) -> Result<(), String> {
    let files = (!files.is_empty()).then_some(files);
    let fast = crate::budget::batch::fit_text(text, max, files);
    let model = model_fit_text(text, max, files);
    if fast != model {
        return Err(format!("fit_text({text:?}, {max}): {fast:?} != {model:?}"));
    }
    if fast != text && fast.encode_utf16().count() > max {
        return Err(format!("fit_text({text:?}, {max}) is over: {fast:?}"));
    }
    let target = PersistTarget::File("/spill/c.txt");
    let stub = crate::budget::persist::persisted_stub(text, text.len() as u64, "00", target);
    if stub != model_stub(text, "00", target) {
        return Err(format!("stub of {text:?} differs from the model"));
    }
    let gate = crate::budget::persist_gate("grep_search", text, false, max);
    if gate != model_persist_gate("grep_search", text, false, max) {
        return Err(format!("gate of {text:?} at {max} differs from the model"));
    }
    Ok(())
}

/// Entries and a budget from fuzz bytes: the first two bytes the budget,
/// then results separated by `0xFF`, each an `output` (a byte of 1 as the
/// first makes it an `error`, 2 an already decided result).
#[allow(clippy::panic)] // A fuzz oracle reports failure by panicking.
pub fn fuzz_batch(data: &[u8]) {
    let (budget, rest) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
        _ => return,
    };
    let texts: Vec<(u8, String)> = rest
        .split(|&b| b == 0xFF)
        .map(|piece| match piece {
            [kind @ 1..=2, body @ ..] => (*kind, String::from_utf8_lossy(body).into_owned()),
            _ => (0, String::from_utf8_lossy(piece).into_owned()),
        })
        .collect();
    let parts: Vec<[crate::budget::Part<'_>; 1]> = texts
        .iter()
        .map(|(kind, text)| {
            let mut part = crate::budget::Part::default();
            if *kind == 1 {
                part.error = Some(text);
            } else {
                part.output = Some(text);
            }
            [part]
        })
        .collect();
    let decided: [&str; 1] = ["/old/file.output"];
    let entries: Vec<Entry<'_>> = texts
        .iter()
        .zip(&parts)
        .enumerate()
        .map(|(i, ((kind, _), parts))| Entry {
            call_id: if i % 3 == 0 { "call" } else { "call-1" },
            tool_name: "t",
            parts,
            persisted: (*kind == 2).then_some(&decided[..]),
        })
        .collect();
    if let Err(e) = check_batch(&entries, budget) {
        panic!("{e}");
    }
    for (_, text) in &texts {
        if let Err(e) = check_texts(text, budget % 600, &[]) {
            panic!("{e}");
        }
    }
}
