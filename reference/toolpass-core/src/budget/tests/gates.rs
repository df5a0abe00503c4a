//! Gates 1 and 2: the persist gate, its stub, and the per-tool limits.

use super::super::persist::{normalize_call_id, preview};
use super::super::*;
use crate::truncate::{Keep, truncate};

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
