//! The output budgets against Qwen Code's own answers: `cases.json` holds
//! what the published bundle's `finalizeToolResponses` made of 80 generated
//! batches (texts of ASCII, CJK and emoji, outputs, errors, top-level texts
//! and media, results already decided, call ids that collide or name no
//! file) and what its `persistAndTruncateToolResult` wrote as stubs.
//! Regenerate with `scripts/qwen-budget-cases.mjs`; the spill directory it
//! wrote to is `spill` in the file, a fixed path (no test writes there).

use serde_json::Value;
use toolpass_core::budget::{
    Entry, Field, Part, PersistTarget, StubNote, persist_target, persisted_stub, plan_batch,
};

const CASES: &str = include_str!("cases.json");

fn cases() -> Value {
    serde_json::from_str(CASES).expect("cases.json is JSON")
}

fn str_at<'a>(value: &'a Value, field: &str) -> Option<&'a str> {
    value.get(field).and_then(Value::as_str)
}

/// A response part as the finalizer reads it: the strings of `text`,
/// `functionResponse.response.output` and `.error`.
fn part(value: &Value) -> Part<'_> {
    let response = value.pointer("/functionResponse/response");
    Part {
        text: str_at(value, "text"),
        output: response.and_then(|r| str_at(r, "output")),
        error: response.and_then(|r| str_at(r, "error")),
    }
}

fn files(value: &Value) -> Option<Vec<&str>> {
    value
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect())
}

#[test]
fn batches_match_qwens_finalizer() {
    let cases = cases();
    assert_eq!(str_at(&cases, "version"), Some("0.24.4"));
    let spill = str_at(&cases, "spill").expect("spill");
    let batches = cases["batches"].as_array().expect("batches");
    assert_eq!(batches.len(), 80);
    let mut cut = 0;
    for (index, batch) in batches.iter().enumerate() {
        let budget = batch["budget"].as_u64().expect("budget") as usize;
        let raw = batch["entries"].as_array().expect("entries");
        let parts: Vec<Vec<Part<'_>>> = raw
            .iter()
            .map(|e| {
                e["responseParts"]
                    .as_array()
                    .expect("parts")
                    .iter()
                    .map(part)
                    .collect()
            })
            .collect();
        let decided: Vec<Option<Vec<&str>>> = raw
            .iter()
            .map(|e| files(&e["persistedOutputFiles"]))
            .collect();
        let entries: Vec<Entry<'_>> = raw
            .iter()
            .zip(&parts)
            .zip(&decided)
            .map(|((e, parts), decided)| Entry {
                call_id: str_at(e, "callId").expect("callId"),
                tool_name: "shell",
                parts,
                persisted: decided.as_deref(),
            })
            .collect();

        // What the reference makes of it, with Qwen's file naming.
        let mut got: Vec<Vec<Part<'_>>> = parts.clone();
        let mut got_files: Vec<Option<Vec<String>>> = decided
            .iter()
            .map(|d| {
                d.as_ref()
                    .map(|f| f.iter().map(|s| (*s).to_owned()).collect())
            })
            .collect();
        let finished = plan_batch(&entries, budget).cut().map(|plan| {
            let written: Vec<Option<String>> = plan
                .spills()
                .iter()
                .map(|s| {
                    persist_target(&s.call_id, s.text.len() as u64, 0)
                        .ok()
                        .map(|name| format!("{spill}/{name}"))
                })
                .collect();
            plan.finish(&written)
        });
        if let Some(done) = &finished {
            cut += 1;
            got_files = done.persisted.clone();
            for r in &done.replacements {
                let slot = &mut got[r.entry][r.part];
                let text = Some(r.text.as_str());
                match r.field {
                    Field::Text => slot.text = text,
                    Field::Output => slot.output = text,
                    Field::Error => slot.error = text,
                }
            }
        }

        let result = batch["result"].as_array().expect("result");
        for (e, want) in result.iter().enumerate() {
            let want_parts: Vec<Part<'_>> = want["responseParts"]
                .as_array()
                .expect("parts")
                .iter()
                .map(part)
                .collect();
            assert_eq!(
                got[e], want_parts,
                "batch {index}, entry {e} (budget {budget})"
            );
            let want_files = files(&want["persistedOutputFiles"])
                .map(|f| f.into_iter().map(str::to_owned).collect::<Vec<_>>());
            assert_eq!(got_files[e], want_files, "batch {index}, entry {e}: files");
        }
    }
    assert!(cut > 40, "only {cut} batches were over budget");
}

#[test]
fn stubs_match_qwens_persisted_output() {
    let cases = cases();
    let spill = str_at(&cases, "spill").expect("spill");
    let stubs = cases["stubs"].as_array().expect("stubs");
    assert_eq!(stubs.len(), 10);
    for (index, case) in stubs.iter().enumerate() {
        let content = str_at(case, "content").expect("content");
        let digest = str_at(case, "digest").expect("digest");
        let call_id = str_at(case, "callId").expect("callId");
        let bytes = content.len() as u64;
        let path = persist_target(call_id, bytes, 0).map(|name| format!("{spill}/{name}"));
        let target = match &path {
            Ok(path) => PersistTarget::File(path),
            Err(note) => PersistTarget::Note(*note),
        };
        // Qwen's preview keeps half of a surrogate pair where its 2 000th
        // unit falls inside one (stored as U+FFFD); the reference keeps
        // neither half. The contents never hold U+FFFD themselves.
        assert!(!content.contains('\u{FFFD}'));
        let want = str_at(case, "stub").expect("stub").replace('\u{FFFD}', "");
        assert_eq!(
            persisted_stub(content, bytes, digest, target),
            want,
            "stub {index}"
        );
        assert_eq!(path.is_err(), call_id == "..");
        if let Err(note) = path {
            assert_eq!(note, StubNote::InvalidCallId);
        }
    }
}
