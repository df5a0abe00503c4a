//! Gate 3, the batch budget: Qwen's `finalizeToolResponses`
//! (`tools/tool-response-finalizer.ts`), which `CoreToolScheduler` runs on
//! every completed batch (`applyBatchOutputBudget`), whatever each call's
//! status.
//!
//! Two steps around the caller's writes:
//!
//! 1. [`plan_batch`]: the batch's text slots (a part's `text`, its
//!    function response's `output` and `error`) and their total. Within the
//!    budget: [`Planned::Whole`], nothing changes. Over it: each slot's share
//!    ([`allocate`], Qwen's `allocateTextBudget`), and the results to save
//!    whole ([`BatchPlan::spills`]: each result with a slot over its share,
//!    in slot order, but for those whose saving was already decided by an
//!    earlier gate).
//! 2. The caller saves each spill in order (Qwen's
//!    `persistAndTruncateToolResult`: [`super::persist_target`], then the
//!    write) and hands back the path written, or `None` (no file: a note,
//!    a failure, a throw). [`BatchPlan::finish`] then cuts every slot over
//!    its share to a header naming the result's files and a head/tail
//!    preview ([`fit_text`]), and reports the reduction.
//!
//! The total after is never over the budget: every share sums to it and
//! every cut text is within its share.

use std::borrow::Cow;

mod share;
mod spill_ids;

pub use share::{allocate, fit_text};

use super::units;
use share::fit;
use spill_ids::SpillIds;

/// A part of a result, as the finalizer reads it: the strings it has.
/// Media, and any field that is not a string, are absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Part<'a> {
    /// A top-level `text`.
    pub text: Option<&'a str>,
    /// `functionResponse.response.output` (a success's text). An empty one
    /// is no slot.
    pub output: Option<&'a str>,
    /// `functionResponse.response.error` (a failure's text).
    pub error: Option<&'a str>,
}

/// One completed call of the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The call id (named in the spill file).
    pub call_id: &'a str,
    /// The tool's name.
    pub tool_name: &'a str,
    /// The response parts.
    pub parts: &'a [Part<'a>],
    /// Qwen's `persistedOutputFiles`: `None` while no gate decided, `Some`
    /// with the files an earlier gate wrote (empty: decided not to). A
    /// decided result is never saved again; its header names its files.
    pub persisted: Option<&'a [&'a str]>,
}

/// Which string of a part a slot is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `text`.
    Text,
    /// `functionResponse.response.output`.
    Output,
    /// `functionResponse.response.error`.
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot<'a> {
    entry: usize,
    part: usize,
    field: Field,
    text: &'a str,
    units: usize,
}

/// A result to save whole before the batch is cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spill<'a> {
    /// Index of the entry.
    pub entry: usize,
    /// The id to name the file by: the normalized call id, made unique in
    /// the batch with `-1`, `-2`, … (or the raw id when it normalizes to
    /// nothing, which [`super::persist_target`] then refuses).
    pub call_id: String,
    /// The entry's slots joined with a blank line.
    pub text: Cow<'a, str>,
}

/// An over-budget batch: the shares and the spills, waiting for the writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchPlan<'a> {
    entries: &'a [Entry<'a>],
    slots: Vec<Slot<'a>>,
    shares: Vec<usize>,
    budget: usize,
    total: usize,
    reduced: usize,
    spills: Vec<Spill<'a>>,
}

/// A slot's new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// Index of the entry.
    pub entry: usize,
    /// Index of the part in the entry.
    pub part: usize,
    /// Which of the part's strings.
    pub field: Field,
    /// What replaces it.
    pub text: String,
}

/// What a batch went through, reported rather than hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchReport {
    /// The budget, in UTF-16 units.
    pub budget: usize,
    /// The batch's text before.
    pub before: usize,
    /// The batch's text after; never over `budget`.
    pub after: usize,
    /// Results with a slot over its share.
    pub reduced: usize,
}

impl BatchReport {
    /// Qwen's log line.
    #[must_use]
    pub fn message(&self) -> String {
        format!(
            "Tool response budget ({} chars): reduced {} result(s) from {} to {} chars.",
            self.budget, self.reduced, self.before, self.after
        )
    }
}

/// The batch after its cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finalized {
    /// The slots cut, in slot order.
    pub replacements: Vec<Replacement>,
    /// Each entry's files after the gate (`None`: still undecided).
    pub persisted: Vec<Option<Vec<String>>>,
    /// The reduction.
    pub report: BatchReport,
}

/// What the batch budget makes of a batch.
#[derive(Debug)]
pub enum Planned<'a> {
    /// The budget is 0 (Qwen's "not positive"): no budget, nothing counted.
    Unlimited,
    /// The batch's text, `units` UTF-16 units, is within the budget: left
    /// whole.
    Whole {
        /// The batch's text.
        units: usize,
    },
    /// Over the budget: the cut to make.
    Cut(BatchPlan<'a>),
}

impl<'a> Planned<'a> {
    /// The cut, if the batch needs one.
    #[must_use]
    pub fn cut(self) -> Option<BatchPlan<'a>> {
        match self {
            Planned::Cut(plan) => Some(plan),
            Planned::Unlimited | Planned::Whole { .. } => None,
        }
    }
}

/// Plans the batch budget over `entries`: the batch's text is counted once,
/// and that count answers a batch within the budget too.
#[must_use]
pub fn plan_batch<'a>(entries: &'a [Entry<'a>], budget: usize) -> Planned<'a> {
    if budget == 0 {
        return Planned::Unlimited;
    }
    let slots = collect_slots(entries);
    let total = slots.iter().map(|s| s.units).sum::<usize>();
    if total <= budget {
        return Planned::Whole { units: total };
    }
    let lengths: Vec<usize> = slots.iter().map(|s| s.units).collect();
    let shares = allocate(&lengths, budget);
    // Entries with a slot over its share, in the order their first such
    // slot comes (a JavaScript `Set`'s insertion order).
    let mut over = vec![false; entries.len()];
    let mut order = Vec::new();
    for (slot, share) in slots.iter().zip(&shares) {
        let Some(flag) = over.get_mut(slot.entry) else {
            continue;
        };
        if slot.units > *share && !*flag {
            *flag = true;
            order.push(slot.entry);
        }
    }
    let mut ids = SpillIds::new(entries.iter().map(|e| e.call_id));
    let mut spills = Vec::new();
    for &index in &order {
        let Some(entry) = entries.get(index) else {
            continue;
        };
        if entry.persisted.is_some() {
            continue;
        }
        spills.push(Spill {
            entry: index,
            call_id: ids.next(index, entry.call_id),
            text: entry_text(&slots, index),
        });
    }
    Planned::Cut(BatchPlan {
        entries,
        slots,
        shares,
        budget,
        total,
        reduced: order.len(),
        spills,
    })
}

impl<'a> BatchPlan<'a> {
    /// The results to save whole, in the order Qwen saves them.
    #[must_use]
    pub fn spills(&self) -> &[Spill<'a>] {
        &self.spills
    }

    /// Cuts the batch, given what each spill's write gave (`written[i]` for
    /// `spills()[i]`: the path, or `None`; a missing answer is `None`).
    #[must_use]
    pub fn finish(&self, written: &[Option<String>]) -> Finalized {
        let mut persisted: Vec<Option<Vec<String>>> = self
            .entries
            .iter()
            .map(|e| {
                e.persisted
                    .map(|files| files.iter().map(|f| (*f).to_owned()).collect())
            })
            .collect();
        for (i, spill) in self.spills.iter().enumerate() {
            let files = written.get(i).cloned().flatten().into_iter().collect();
            if let Some(slot) = persisted.get_mut(spill.entry) {
                *slot = Some(files);
            }
        }
        let mut replacements = Vec::new();
        let mut after = 0usize;
        for (slot, &share) in self.slots.iter().zip(&self.shares) {
            if slot.units <= share {
                after += slot.units;
                continue;
            }
            let files = persisted.get(slot.entry).and_then(Option::as_deref);
            let text = fit(slot.text, slot.units, share, files);
            after += units(&text);
            replacements.push(Replacement {
                entry: slot.entry,
                part: slot.part,
                field: slot.field,
                text,
            });
        }
        Finalized {
            replacements,
            persisted,
            report: BatchReport {
                budget: self.budget,
                before: self.total,
                after,
                reduced: self.reduced,
            },
        }
    }
}

/// Qwen's `collectTextSlots` with top-level texts and no protected prefix
/// (the reference has no `enter_plan_mode`, whose lifecycle reminder Qwen
/// keeps out of the budget).
fn collect_slots<'a>(entries: &'a [Entry<'a>]) -> Vec<Slot<'a>> {
    let mut slots = Vec::new();
    for (entry, e) in entries.iter().enumerate() {
        for (part, p) in e.parts.iter().enumerate() {
            let fields = [
                (Field::Text, p.text),
                (Field::Output, p.output.filter(|o| !o.is_empty())),
                (Field::Error, p.error),
            ];
            for (field, text) in fields {
                if let Some(text) = text {
                    slots.push(Slot {
                        entry,
                        part,
                        field,
                        text,
                        units: units(text),
                    });
                }
            }
        }
    }
    slots
}

/// An entry's slots joined with a blank line: what Qwen saves.
fn entry_text<'a>(slots: &[Slot<'a>], entry: usize) -> Cow<'a, str> {
    // Slots are collected entry by entry, so an entry's are one run, found
    // by bisection: a batch of many spills stays linear.
    let start = slots.partition_point(|s| s.entry < entry);
    let end = slots.partition_point(|s| s.entry <= entry);
    let mut texts = slots
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|s| s.text);
    match (texts.next(), texts.next()) {
        (Some(only), None) => Cow::Borrowed(only),
        (first, second) => {
            let all: Vec<&str> = first.into_iter().chain(second).chain(texts).collect();
            Cow::Owned(all.join("\n\n"))
        }
    }
}
