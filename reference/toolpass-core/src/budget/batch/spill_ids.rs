//! The names a batch's spills are saved under: Qwen's normalized call ids
//! (`normalizeToolResultCallId`), made unique in the batch.

use std::collections::{HashMap, HashSet};

use crate::budget::persist::normalize_call_id;

/// Qwen's naming: a call's normalized id when no other call of the batch
/// has it and it was not handed out, else the first `<id>-<n>` (from 1)
/// that no call of the batch has and that was not handed out.
pub(super) struct SpillIds {
    normalized: Vec<Option<String>>,
    counts: HashMap<String, usize>,
    used: HashSet<String>,
    /// Where each id's search for a free `-<n>` resumes. Qwen starts again
    /// at 1 for every spill (quadratic for a batch of one id); a suffix it
    /// passed over stays taken, since the batch's ids do not change and the
    /// handed-out ones only grow, so resuming finds the same one.
    resume: HashMap<String, usize>,
}

impl SpillIds {
    /// For a batch whose calls have these ids, in order.
    pub(super) fn new<'a>(call_ids: impl Iterator<Item = &'a str>) -> Self {
        let normalized: Vec<Option<String>> = call_ids.map(normalize_call_id).collect();
        let mut counts = HashMap::new();
        for id in normalized.iter().flatten() {
            *counts.entry(id.clone()).or_insert(0) += 1;
        }
        Self {
            normalized,
            counts,
            used: HashSet::new(),
            resume: HashMap::new(),
        }
    }

    /// The name for entry `index`, whose call id is `raw`: the raw id when
    /// it normalizes to nothing (the write then refuses it, as Qwen's does).
    pub(super) fn next(&mut self, index: usize, raw: &str) -> String {
        let Some(Some(id)) = self.normalized.get(index) else {
            return raw.to_owned();
        };
        let chosen = if self.counts.get(id) == Some(&1) && !self.used.contains(id) {
            id.clone()
        } else {
            let mut n = self.resume.get(id).copied().unwrap_or(1);
            let mut candidate = format!("{id}-{n}");
            while self.counts.contains_key(&candidate) || self.used.contains(&candidate) {
                n += 1;
                candidate = format!("{id}-{n}");
            }
            self.resume.insert(id.clone(), n + 1);
            candidate
        };
        self.used.insert(chosen.clone());
        chosen
    }
}
