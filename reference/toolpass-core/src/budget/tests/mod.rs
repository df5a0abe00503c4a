//! Tests of the three gates: Qwen's own cases (marked `upstream:`), every
//! boundary the SPEC names, cuts among wide characters, snapshots of the
//! texts, and properties against the models in `testkit::budget`. Qwen's
//! bundle itself is checked in `tests/qwen_budget`.

mod batch;
mod gates;
mod properties;

use super::*;
use crate::testkit::budget::check_batch;

pub(super) fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

pub(super) fn output(text: &str) -> [Part<'_>; 1] {
    [Part {
        output: Some(text),
        ..Part::default()
    }]
}

pub(super) fn entry<'a>(
    call_id: &'a str,
    parts: &'a [Part<'a>],
    persisted: Option<&'a [&'a str]>,
) -> Entry<'a> {
    Entry {
        call_id,
        tool_name: "shell",
        parts,
        persisted,
    }
}

/// The upstream tests' writer: `/tmp/<call id>.txt` for every spill.
pub(super) fn tmp_writer(call_id: &str, _: &str) -> Option<String> {
    Some(format!("/tmp/{call_id}.txt"))
}

/// Plans, writes with `writer`, finishes, and checks the result against
/// the model.
pub(super) fn finalize(
    entries: &[Entry<'_>],
    budget: usize,
    writer: fn(&str, &str) -> Option<String>,
) -> Option<(Vec<Spill>, Finalized)> {
    check_batch(entries, budget).unwrap();
    let plan = plan_batch(entries, budget).cut()?;
    let spills: Vec<Spill> = plan
        .spills()
        .iter()
        .map(|s| Spill {
            call_id: s.call_id.clone(),
            text: s.text.to_string(),
        })
        .collect();
    let written: Vec<Option<String>> = spills.iter().map(|s| writer(&s.call_id, &s.text)).collect();
    Some((spills, plan.finish(&written)))
}

#[derive(Debug, PartialEq, Eq)]
pub(super) struct Spill {
    pub(super) call_id: String,
    pub(super) text: String,
}
