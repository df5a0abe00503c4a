//! Tests of the three gates: Qwen's own cases (marked `upstream:`), every
//! boundary the SPEC names, cuts among wide characters, snapshots of the
//! texts, and properties against the models in `testkit::budget`.

use proptest::prelude::*;

use super::batch::{allocate, fit_text};
use super::persist::{normalize_call_id, preview};
use super::*;
use crate::testkit::budget::{
    check_batch, check_texts, fast_finalize, model_allocate, model_llm_text, model_persist_gate,
};
use crate::truncate::{Keep, truncate};

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn output(text: &str) -> [Part<'_>; 1] {
    [Part {
        output: Some(text),
        ..Part::default()
    }]
}

fn entry<'a>(
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
fn tmp_writer(call_id: &str, _: &str) -> Option<String> {
    Some(format!("/tmp/{call_id}.txt"))
}

/// Plans, writes with `writer`, finishes, and checks the result against
/// the model.
fn finalize(
    entries: &[Entry<'_>],
    budget: usize,
    writer: fn(&str, &str) -> Option<String>,
) -> Option<(Vec<Spill>, Finalized)> {
    check_batch(entries, budget).unwrap();
    let plan = plan_batch(entries, budget)?;
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
struct Spill {
    call_id: String,
    text: String,
}

// ---- gate 1: persist ----

#[test]
fn persist_gate_boundaries_at_the_default_threshold() {
    let at = |n: usize| persist_gate("grep_search", &"a".repeat(n), false, 25_000);
    for n in [24_999, 25_000, 28_000] {
        assert_eq!(at(n), Gate::Pass(GateSkip::WithinThreshold), "{n}");
    }
    assert_eq!(at(28_001), Gate::Persist);
    // UTF-16 units: 14 000 emoji are 28 000 units in 56 000 bytes.
    let emoji = "😀".repeat(14_000);
    assert_eq!(
        persist_gate("grep_search", &emoji, false, 25_000),
        Gate::Pass(GateSkip::WithinThreshold)
    );
    let over = format!("{emoji}é");
    assert_eq!(
        persist_gate("grep_search", &over, false, 25_000),
        Gate::Persist
    );
    let cjk = "中".repeat(28_001);
    assert_eq!(
        persist_gate("grep_search", &cjk, false, 25_000),
        Gate::Persist
    );
    // A threshold that is not positive is infinite.
    assert_eq!(
        persist_gate("grep_search", &cjk, false, 0),
        Gate::Pass(GateSkip::WithinThreshold)
    );
}

#[test]
fn persist_gate_skips_in_qwens_order() {
    let big = "x".repeat(30_000);
    for tool in GATE_EXEMPT_TOOLS {
        assert_eq!(
            persist_gate(tool, &big, false, 25_000),
            Gate::Pass(GateSkip::Exempt)
        );
    }
    assert_eq!(
        persist_gate("read_file", &big, true, 25_000),
        Gate::Pass(GateSkip::OutputBudgetApplied)
    );
    assert_eq!(
        persist_gate("glob", "", false, 25_000),
        Gate::Pass(GateSkip::Empty)
    );
    let marked = format!("{big}\n... [CONTENT TRUNCATED] ...\n{big}");
    assert_eq!(
        persist_gate("glob", &marked, false, 25_000),
        Gate::Pass(GateSkip::AlreadyTruncated)
    );
    let stub = format!("<persisted-output>{big}");
    assert_eq!(
        persist_gate("glob", &stub, false, 25_000),
        Gate::Pass(GateSkip::AlreadyTruncated)
    );
    // Only at the start, as `startsWith`.
    let inner = format!(" <persisted-output>{big}");
    assert_eq!(persist_gate("glob", &inner, false, 25_000), Gate::Persist);
}

#[test]
fn gate_text_joins_parts_with_media_as_empty_text() {
    let parts = [
        ContentPart::Text("a"),
        ContentPart::Media,
        ContentPart::Text("b"),
    ];
    assert_eq!(gate_text(&Content::Parts(&parts)), "a\n\nb");
    assert_eq!(
        gate_text(&Content::Parts(&[ContentPart::Text("only")])),
        "only"
    );
    assert_eq!(gate_text(&Content::Parts(&[ContentPart::Media])), "");
    assert_eq!(gate_text(&Content::Text("t")), "t");
}

#[test]
fn persist_target_checks_size_then_session_then_call_id() {
    assert_eq!(persist_target("c1", 10, 0), Ok("c1.txt".to_owned()));
    assert_eq!(
        persist_target("..", MAX_FILE_SIZE_BYTES + 1, 0),
        Err(StubNote::FileTooLarge)
    );
    assert_eq!(
        persist_target(
            "..",
            MAX_FILE_SIZE_BYTES,
            MAX_SESSION_BYTES - MAX_FILE_SIZE_BYTES + 1
        ),
        Err(StubNote::SessionBudgetExhausted)
    );
    assert_eq!(
        persist_target(
            "c",
            MAX_FILE_SIZE_BYTES,
            MAX_SESSION_BYTES - MAX_FILE_SIZE_BYTES
        ),
        Ok("c.txt".to_owned())
    );
    assert_eq!(persist_target("..", 1, 0), Err(StubNote::InvalidCallId));
}

#[test]
fn call_ids_normalize_like_node_basename() {
    for (id, want) in [
        ("call_1", Some("call_1")),
        ("dir/call", Some("call")),
        ("dir/call/", Some("call")),
        ("/", None),
        ("", None),
        (".", None),
        ("a/..", None),
        ("x\0y", Some("x_y")),
    ] {
        assert_eq!(normalize_call_id(id).as_deref(), want, "{id:?}");
    }
}

#[test]
fn preview_cuts_at_the_last_newline_and_escapes_tags() {
    assert_eq!(preview(&"a".repeat(2_000)), "a".repeat(2_000));
    let lines = format!("{}\n{}", "a".repeat(1_500), "b".repeat(1_000));
    assert_eq!(preview(&lines), format!("{}\n...", "a".repeat(1_500)));
    assert_eq!(
        preview(&"a".repeat(2_001)),
        format!("{}\n...", "a".repeat(2_000))
    );
    // A newline at 0 is not a cut point (`lastNewline > 0`).
    let leading = format!("\n{}", "a".repeat(2_500));
    assert_eq!(preview(&leading), format!("\n{}\n...", "a".repeat(1_999)));
    // Half an emoji at the cut is dropped.
    let emoji = format!("{}😀b", "a".repeat(1_999));
    assert_eq!(preview(&emoji), format!("{}\n...", "a".repeat(1_999)));
    assert_eq!(
        preview("x</persisted-output><system-reminder></system-reminder><persisted-outputs>"),
        "x&lt;/persisted-output&gt;&lt;system-reminder&gt;&lt;/system-reminder&gt;<persisted-outputs>"
    );
}

#[test]
fn stub_size_rounds_half_up_and_head_may_be_a_prefix() {
    let kb =
        |bytes: u64| persisted_stub("x", bytes, "d", PersistTarget::Note(StubNote::FileTooLarge));
    assert!(kb(511).starts_with("Output too large (0 KB)."));
    assert!(kb(512).starts_with("Output too large (1 KB)."));
    assert!(kb(1_535).starts_with("Output too large (1 KB)."));
    assert!(kb(1_536).starts_with("Output too large (2 KB)."));
    let whole = format!("{}\n{}", "a".repeat(3_000), "b".repeat(90_000));
    let target = PersistTarget::File("/s/c.txt");
    let n = whole.len() as u64;
    assert_eq!(
        persisted_stub(&whole[..6_001], n, "d", target),
        persisted_stub(&whole, n, "d", target)
    );
}

#[test]
fn stub_snapshots() {
    let content = format!(
        "{}\n<system-reminder>hi</system-reminder>\n{}",
        "log line\n".repeat(3),
        "z".repeat(40_000)
    );
    let digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let mut all = String::new();
    for target in [
        PersistTarget::File("/home/u/.qwen/tmp/abc/tool-results/call_7.txt"),
        PersistTarget::Note(StubNote::SessionBudgetExhausted),
    ] {
        all.push_str(&persisted_stub(
            &content,
            content.len() as u64,
            digest,
            target,
        ));
        all.push_str("\n==========\n");
    }
    insta::assert_snapshot!("persisted_stubs", all);
}

// ---- gate 2: per tool ----

#[test]
fn tool_limits_follow_the_scheduler() {
    let session = SessionLimits::default();
    assert_eq!(
        tool_limits(session, None, None),
        crate::truncate::Limits::default()
    );
    let agent = tool_limits(session, Some(32_000), Some(Keep::Tail));
    assert_eq!(
        (agent.threshold, agent.lines, agent.keep),
        (32_000, None, Keep::Tail)
    );
    let off = SessionLimits {
        threshold: 0,
        lines: 0,
    };
    let limits = tool_limits(off, None, None);
    assert_eq!((limits.threshold, limits.lines), (usize::MAX, None));
    assert_eq!(tool_limits(session, Some(0), None).threshold, 0);
}

#[test]
fn per_tool_cut_boundaries_and_keep() {
    let limits = tool_limits(SessionLimits::default(), None, None);
    for n in [24_999, 25_000] {
        assert!(truncate(&"a".repeat(n), &limits).is_none(), "{n}");
    }
    for n in [25_001, 28_000, 28_001] {
        assert!(truncate(&"a".repeat(n), &limits).is_some(), "{n}");
    }
    // A tool's `truncateKeep: tail` (Qwen's agent tool) keeps the end.
    let tail = tool_limits(SessionLimits::default(), Some(100), Some(Keep::Tail));
    let text = format!("{}END", "a".repeat(200));
    let cut = truncate(&text, &tail).unwrap().preview();
    assert!(cut.ends_with("aEND") && !cut.starts_with('a'), "{cut:?}");
}

#[test]
fn llm_text_marks_empty_output_and_skips_cut_results() {
    let no = |c| llm_text("glob", c);
    assert_eq!(
        no(Content::Text(" \n\t\u{feff}")),
        LlmText::NoOutput("(glob completed with no output)".into())
    );
    let cut = format!("{}.\nrest", crate::truncate::TOOL_OUTPUT_TRUNCATED_PREFIX);
    assert_eq!(no(Content::Text(&cut)), LlmText::AlreadyTruncated);
    let parts = [
        ContentPart::Text("a"),
        ContentPart::Media,
        ContentPart::Text("b"),
    ];
    assert_eq!(
        no(Content::Parts(&parts)),
        LlmText::Cut {
            text: "a\nb".into(),
            media: 1
        }
    );
    assert_eq!(
        no(Content::Parts(&[
            ContentPart::Text(" "),
            ContentPart::Media
        ])),
        LlmText::Cut {
            text: " ".into(),
            media: 1
        }
    );
    assert!(matches!(
        no(Content::Parts(&[ContentPart::Text(" ")])),
        LlmText::NoOutput(_)
    ));
    let second = [ContentPart::Text("a"), ContentPart::Text(&cut)];
    assert_eq!(no(Content::Parts(&second)), LlmText::AlreadyTruncated);
}

// ---- gate 3: the batch ----

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

// ---- properties ----

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ab\\n中😀é]{0,60}",
        "(?s).{0,80}",
        ("[a中😀\\n]{1,4}", 1usize..200).prop_map(|(p, n)| p.repeat(n)),
    ]
}

fn any_part() -> impl Strategy<Value = (Option<String>, Option<String>, Option<String>)> {
    (
        proptest::option::of(any_text()),
        proptest::option::of(any_text()),
        proptest::option::of(any_text()),
    )
}

proptest! {
    #[test]
    fn allocate_agrees_with_the_model(lengths in proptest::collection::vec(0usize..300, 0..12), budget in 0usize..2_000) {
        let shares = allocate(&lengths, budget);
        prop_assert_eq!(&shares, &model_allocate(&lengths, budget));
        prop_assert!(shares.iter().sum::<usize>() <= budget.max(lengths.iter().sum()));
    }

    #[test]
    fn batch_agrees_with_the_model_and_fits(
        results in proptest::collection::vec(
            (proptest::collection::vec(any_part(), 0..3), 0u8..4, "(dir/)?(c|c-1|\\.\\.|x!)"),
            0..6,
        ),
        budget in 0usize..400,
    ) {
        let parts: Vec<Vec<Part<'_>>> = results
            .iter()
            .map(|(parts, _, _)| parts.iter().map(|(t, o, e)| Part {
                text: t.as_deref(),
                output: o.as_deref(),
                error: e.as_deref(),
            }).collect())
            .collect();
        let decided: [&[&str]; 3] = [&[], &["/old/a.output"], &["/old/a.output", "/old/b.output"]];
        let entries: Vec<Entry<'_>> = results
            .iter()
            .zip(&parts)
            .map(|((_, kind, id), parts)| Entry {
                call_id: id,
                tool_name: "t",
                parts,
                persisted: decided.get(usize::from(*kind)).copied(),
            })
            .collect();
        if let Err(e) = check_batch(&entries, budget) {
            return Err(TestCaseError::fail(e));
        }
        if let Some((_, _, before, after)) = fast_finalize(&entries, budget, |_, _| None) {
            prop_assert!(before > budget && after <= budget);
        }
    }

    #[test]
    fn texts_agree_with_the_models(text in any_text(), max in 0usize..300, files in proptest::collection::vec("/[a😀]{0,4}", 0..3)) {
        if let Err(e) = check_texts(&text, max, &files) {
            return Err(TestCaseError::fail(e));
        }
        let stub_len = 10 + text.len() / 3;
        prop_assert_eq!(
            persist_gate("t", &text, false, stub_len),
            model_persist_gate("t", &text, false, stub_len)
        );
    }

    #[test]
    fn llm_text_agrees_with_the_model(parts in proptest::collection::vec(proptest::option::of("[ \\n\\ta]{0,3}|Tool output was too large and has been truncated.*"), 0..4), single in any::<bool>()) {
        let content: Vec<ContentPart<'_>> = parts.iter().map(|p| p.as_deref().map_or(ContentPart::Media, ContentPart::Text)).collect();
        let content = match (single, content.first()) {
            (true, Some(ContentPart::Text(t))) => Content::Text(t),
            _ => Content::Parts(&content),
        };
        prop_assert_eq!(llm_text("t", content), model_llm_text("t", content));
    }
}

#[test]
fn fuzz_batch_smoke() {
    let cases: [&[u8]; 5] = [
        b"",
        b"\x10\x00abc\xffdef",
        b"\x05\x00\x01error text\xff\x02decided\xff\xf0\x9f\x98\x80\xf0\x9f\x98\x80",
        b"\x00\x00anything",
        b"\xff\xff\xc3\xa9\xff\xe4\xb8\xad",
    ];
    for case in cases {
        crate::testkit::budget::fuzz_batch(case);
    }
    let long = [
        &[40u8, 0][..],
        &"😀a\n".repeat(300).into_bytes(),
        b"\xff",
        &"b".repeat(900).into_bytes(),
    ]
    .concat();
    crate::testkit::budget::fuzz_batch(&long);
}
