//! Gate 3: the batch budget.

use super::super::batch::{allocate, fit_text};
use super::super::*;
use super::{Spill, entry, finalize, output, tmp_writer, utf16_len};
use crate::testkit::budget::check_texts;

#[test]
fn allocate_shares_out_fairly_and_breaks_ties_by_order() {
    assert_eq!(allocate(&[10, 50, 100], 90), vec![10, 40, 40]);
    assert_eq!(allocate(&[100, 100, 100], 100), vec![34, 33, 33]);
    assert_eq!(allocate(&[5, 300, 7, 300], 113), vec![5, 51, 7, 50]);
    assert_eq!(allocate(&[3, 4], 100), vec![3, 4]);
    assert_eq!(allocate(&[], 10), Vec::<usize>::new());
    assert_eq!(allocate(&[9, 9], 0), vec![0, 0]);
}

#[test]
fn batch_within_budget_or_disabled_is_untouched() {
    let text = "x".repeat(10_000);
    let parts = output(&text);
    let entries = [entry("c", &parts, None)];
    // upstream: tool-response-finalizer.test.ts "does not persist or rewrite responses when the budget is disabled"
    assert!(finalize(&entries, 0, tmp_writer).is_none());
    // upstream: tool-response-finalizer.test.ts "leaves a batch within budget unchanged"
    assert!(finalize(&entries, 10_000, tmp_writer).is_none());
    assert!(finalize(&entries, 9_999, tmp_writer).is_some());
}

// upstream: tool-response-finalizer.test.ts "hard-caps producer-truncated responses without writing them again"
#[test]
fn decided_results_are_capped_without_a_new_spill() {
    let prefix = crate::truncate::TOOL_OUTPUT_TRUNCATED_PREFIX;
    let (a, b) = (
        format!("{prefix}{}", "a".repeat(7_000)),
        format!("{prefix}{}", "b".repeat(7_000)),
    );
    let (pa, pb) = (output(&a), output(&b));
    let (fa, fb) = (["/tmp/one.output"], ["/tmp/two.output"]);
    let entries = [entry("one", &pa, Some(&fa)), entry("two", &pb, Some(&fb))];
    let (spills, done) = finalize(&entries, 10_000, tmp_writer).unwrap();
    assert!(spills.is_empty());
    assert_eq!(
        done.report.message(),
        "Tool response budget (10000 chars): reduced 2 result(s) from 14096 to 10000 chars."
    );
    assert!(
        done.replacements[0].text.starts_with(
            "Tool output truncated. Persisted tool-output artifact: /tmp/one.output\n\n"
        )
    );
    assert!(done.replacements[1].text.contains("/tmp/two.output"));
}

// upstream: tool-response-finalizer.test.ts "keeps every producer artifact path visible when the budget permits"
#[test]
fn several_files_are_listed() {
    let text = "x".repeat(10_000);
    let parts = output(&text);
    let files = ["/tmp/first.output", "/tmp/second.output"];
    let entries = [entry("multi", &parts, Some(&files))];
    let (_, done) = finalize(&entries, 500, tmp_writer).unwrap();
    assert!(done.replacements[0].text.starts_with(
        "Tool output truncated. Persisted tool-output artifacts:\n- /tmp/first.output\n- /tmp/second.output\n\n"
    ));
}

// upstream: tool-response-finalizer.test.ts "counts output, error, and top-level text while preserving media"
#[test]
fn every_text_slot_counts_and_the_spill_joins_them() {
    let (o, e, t) = ("o".repeat(4_000), "e".repeat(4_000), "t".repeat(4_000));
    let parts = [
        Part {
            output: Some(&o),
            error: Some(&e),
            text: None,
        },
        Part {
            text: Some(&t),
            ..Part::default()
        },
        Part::default(),
    ];
    let entries = [entry("mixed", &parts, None)];
    let (spills, done) = finalize(&entries, 3_000, tmp_writer).unwrap();
    assert_eq!(
        spills,
        vec![Spill {
            call_id: "mixed".into(),
            text: format!("{o}\n\n{e}\n\n{t}")
        }]
    );
    assert_eq!(
        done.persisted,
        vec![Some(vec!["/tmp/mixed.txt".to_owned()])]
    );
    assert_eq!(done.report.after, 3_000);
    let fields: Vec<(usize, Field)> = done
        .replacements
        .iter()
        .map(|r| (r.part, r.field))
        .collect();
    assert_eq!(
        fields,
        vec![(0, Field::Output), (0, Field::Error), (1, Field::Text)]
    );
}

// upstream: tool-response-finalizer.test.ts "enforces the cap when persistence has already failed"
// upstream: tool-response-finalizer.test.ts "enforces the cap when persistence throws"
#[test]
fn a_failed_spill_still_cuts() {
    let text = "x".repeat(10_000);
    let parts = output(&text);
    let entries = [entry("failed", &parts, Some(&[]))];
    let (spills, done) = finalize(&entries, 500, tmp_writer).unwrap();
    assert!(spills.is_empty());
    assert!(
        done.replacements[0]
            .text
            .starts_with("Tool output truncated.\n\n")
    );
    let entries = [entry("throws", &parts, None)];
    let (_, done) = finalize(&entries, 500, |_, _| None).unwrap();
    assert_eq!(done.persisted, vec![Some(vec![])]);
    assert!(utf16_len(&done.replacements[0].text) <= 500);
}

// upstream: tool-response-finalizer.test.ts "uses distinct artifact paths for duplicate call ids"
// upstream: tool-response-finalizer.test.ts "avoids collisions between duplicate ids and natural suffix ids"
// upstream: tool-response-finalizer.test.ts "avoids collisions after call ids are normalized to basenames"
#[test]
fn spill_ids_are_unique_in_the_batch() {
    let ids = |calls: &[&str]| {
        let texts: Vec<String> = (0..calls.len())
            .map(|i| char::from(b'a' + i as u8).to_string().repeat(1_000))
            .collect();
        let parts: Vec<[Part<'_>; 1]> = texts.iter().map(|t| output(t)).collect();
        let entries: Vec<Entry<'_>> = calls
            .iter()
            .zip(&parts)
            .map(|(c, p)| entry(c, p, None))
            .collect();
        let (spills, _) = finalize(&entries, 100, tmp_writer).unwrap();
        spills.into_iter().map(|s| s.call_id).collect::<Vec<_>>()
    };
    assert_eq!(
        ids(&["duplicate", "duplicate"]),
        ["duplicate-1", "duplicate-2"]
    );
    assert_eq!(
        ids(&["call", "call", "call-1"]),
        ["call-2", "call-3", "call-1"]
    );
    assert_eq!(ids(&["dir/call", "call"]), ["call-1", "call-2"]);
    // An id with no file name goes to the write as it is, which refuses it.
    assert_eq!(ids(&["..", "x"]), ["..", "x"]);
}

#[test]
fn largest_results_are_cut_first_and_small_ones_stay_whole() {
    let (small, mid, big) = ("s".repeat(1_000), "m".repeat(60_000), "b".repeat(500_000));
    let (ps, pm, pb) = (output(&small), output(&mid), output(&big));
    let entries = [
        entry("big", &pb, None),
        entry("small", &ps, None),
        entry("mid", &pm, None),
    ];
    let (spills, done) = finalize(&entries, DEFAULT_BATCH_BUDGET, tmp_writer).unwrap();
    // 1 000 and 60 000 fit their shares; the 500 000 gets the rest.
    assert_eq!(spills.len(), 1);
    assert_eq!(spills[0].call_id, "big");
    assert_eq!(done.replacements.len(), 1);
    assert_eq!(
        utf16_len(&done.replacements[0].text),
        DEFAULT_BATCH_BUDGET - 61_000
    );
    assert_eq!(done.report.after, DEFAULT_BATCH_BUDGET);
    assert_eq!(done.report.reduced, 1);
}

// upstream: tool-response-finalizer.test.ts "does not split UTF-16 surrogate pairs"
#[test]
fn cuts_never_split_a_surrogate_pair() {
    let emoji = "😀".repeat(1_000);
    for max in 150..260 {
        let fitted = fit_text(&emoji, max, None);
        assert!(utf16_len(&fitted) <= max);
        check_texts(&emoji, max, &[]).unwrap();
        check_texts(&format!("中{emoji}é"), max, &["/p/😀.txt".to_owned()]).unwrap();
    }
}

#[test]
fn fit_text_degrades_to_the_header() {
    assert_eq!(fit_text("abcdef", 0, None), "");
    assert_eq!(fit_text("abcdef", 6, None), "abcdef");
    let long = "x".repeat(100);
    assert_eq!(fit_text(&long, 10, None), "Tool outpu");
    assert_eq!(fit_text(&long, 24, None), "Tool output truncated.");
    assert_eq!(fit_text(&long, 25, None), "Tool output truncated.\n\nx");
    assert_eq!(fit_text(&long, 29, None), "Tool output truncated.\n\nxxxxx");
    assert_eq!(
        fit_text(&long, 35, None),
        "Tool output truncated.\n\nx\n...\nxxxxx"
    );
}
