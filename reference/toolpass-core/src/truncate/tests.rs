//! Tests of the truncation plan: Qwen's own cases, the edges of the budget
//! arithmetic, multibyte cut points, snapshots and properties. Every case goes
//! through [`plan`], which also holds the fast walk against the slow model.

use proptest::prelude::*;

use super::*;

const NOTE: &str = "\n[Note: Could not save full output to file]";

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn limits(threshold: usize, lines: Option<usize>, keep: Keep, preview: Option<usize>) -> Limits {
    Limits {
        threshold,
        lines,
        keep,
        preview_chars: preview,
    }
}

/// The limits of Qwen's `truncateAndSaveToFile` tests: `THRESHOLD = 40_000`,
/// `TRUNCATE_LINES = 1000`, default `keep` and `previewChars`.
fn upstream_limits() -> Limits {
    limits(40_000, Some(1000), Keep::Both, None)
}

/// Truncates `content` and checks every invariant of a plan: it agrees with
/// the slow model, its preview is within budget and valid, its head is a
/// prefix and its tail a suffix of the input, and only markers sit between.
fn plan<'a>(content: &'a str, limits: &Limits) -> Option<Truncation<'a>> {
    let got = truncate(content, limits);
    assert_eq!(
        got.as_ref().map(Truncation::preview),
        model::preview(content, limits),
        "walk and model disagree on {content:?} under {limits:?}"
    );
    let t = got.as_ref()?;
    let preview = t.preview();
    let budget = limits.preview_chars.unwrap_or(limits.threshold);
    assert_eq!(t.preview_units(), utf16_len(&preview));
    assert!(t.preview_units() <= budget, "{preview:?} is over {budget}");
    assert_eq!(t.content_units(), utf16_len(content));

    let (head, tail) = (t.kept_head(), t.kept_tail());
    assert!(content.starts_with(head));
    assert!(content.ends_with(tail));
    assert_eq!(t.omitted(), head.len()..content.len() - tail.len());
    assert!(preview.starts_with(head) && preview.ends_with(tail));
    let markers = &preview[head.len()..preview.len() - tail.len()];
    let allowed: Vec<String> = ["", ELLIPSIS]
        .iter()
        .flat_map(|h| ["", SEPARATOR].map(move |s| (h, s)))
        .flat_map(|(h, s)| ["", ELLIPSIS].map(move |e| format!("{h}{s}{e}")))
        .collect();
    assert!(allowed.iter().any(|a| a == markers), "{markers:?}");

    assert_eq!(t.unsaved_message(), format!("{preview}{NOTE}"));
    got
}

/// Checks the plan for `content` and that its preview is `expect`
/// (`None`: left as is).
fn check(content: &str, limits: &Limits, expect: Option<&str>) {
    let got = plan(content, limits);
    assert_eq!(got.as_ref().map(Truncation::preview).as_deref(), expect);
}

fn numbered_lines(count: usize, width: usize) -> Vec<String> {
    (0..count).map(|i| format!("{i:0width$}")).collect()
}

// upstream: truncation.test.ts "should return content unchanged if below both threshold and line limit"
#[test]
fn short_content_is_untouched() {
    check("Short content", &upstream_limits(), None);
}

// upstream: truncation.test.ts "should truncate when line limit exceeded even if under character threshold"
// upstream: truncation.test.ts "should truncate content by lines when line limit is the binding constraint"
#[test]
fn line_limit_alone_truncates_to_head_fifth_and_tail_four_fifths() {
    for word in ["short", "hello"] {
        let lines = vec![word; 2000];
        let content = lines.join("\n");
        assert!(utf16_len(&content) < 40_000);
        let expected = format!(
            "{}{SEPARATOR}{}",
            lines[..200].join("\n"),
            lines[2000 - 800..].join("\n")
        );
        check(&content, &upstream_limits(), Some(&expected));

        let t = truncate(&content, &upstream_limits()).unwrap();
        let message = t.wrapped_message("/tmp/test-file.output").unwrap();
        assert!(message.contains("Tool output was too large and has been truncated"));
        assert!(message.contains("Truncated part of the output:"));
        assert!(message.ends_with(&expected));
    }
}

// upstream: truncation.test.ts "should reduce effective lines when line content would exceed character threshold"
#[test]
fn char_budget_reduces_the_lines_kept() {
    let content = vec!["x".repeat(100); 2000].join("\n");
    let t = plan(&content, &upstream_limits()).unwrap();
    let preview = t.preview();
    assert!(preview.contains("... [CONTENT TRUNCATED] ..."));
    assert!(utf16_len(&preview) < 60_000);
    assert!(preview.split('\n').count() < 1000);
}

// upstream: truncation.test.ts "should truncate content with few but very long lines"
#[test]
fn single_huge_line_is_cut_with_an_ellipsis() {
    let content = "a".repeat(200_000);
    // (40_000 - 39) / 5 = 7_992 units of head, three of them the ellipsis;
    // a single line leaves nothing for the tail.
    let expected = format!("{}...{SEPARATOR}", "a".repeat(7_989));
    check(&content, &upstream_limits(), Some(&expected));
    let t = truncate(&content, &upstream_limits()).unwrap();
    let message = t.wrapped_message("/tmp/test-file.output").unwrap();
    let part = message.split(TRUNCATED_PART_MARKER).nth(1).unwrap();
    assert!(utf16_len(part) < 60_000);
}

// upstream: truncation.test.ts "should stay near char threshold even when line lengths vary widely"
#[test]
fn varied_line_lengths_stay_within_budget() {
    let lines: Vec<String> = (0..2000)
        .map(|i| {
            if i % 10 == 0 {
                "x".repeat(5000)
            } else {
                "short".into()
            }
        })
        .collect();
    let content = lines.join("\n");
    let t = plan(&content, &upstream_limits()).unwrap();
    assert!(t.preview().contains("... [CONTENT TRUNCATED] ..."));
    assert!(t.preview_units() <= 40_000);
}

// upstream: truncation.test.ts "should handle file write errors gracefully"
// The stored test expects "full tool output"; the truncation.ts mirrored here
// (the one with `keep` and `previewChars`) says "full output".
#[test]
fn unsaved_message_is_the_preview_and_a_note() {
    let content = "a".repeat(2_000_000);
    let t = plan(&content, &upstream_limits()).unwrap();
    let message = t.unsaved_message();
    assert!(message.contains("[Note: Could not save full output to file]"));
    assert!(!message.contains(TOOL_OUTPUT_TRUNCATED_PREFIX));
    assert_eq!(message, format!("{}{NOTE}", t.preview()));
}

// upstream: truncation.test.ts "should save to correct file path with file name"
// upstream: truncation.test.ts "should include helpful instructions in truncated message"
// (Directory permissions, file-name sanitising and telemetry are the IO
// layer's; those upstream cases have no pure part.)
#[test]
fn wrapped_message_names_the_file_and_how_to_read_it() {
    let content = "a".repeat(2_000_000);
    let t = plan(&content, &upstream_limits()).unwrap();
    let path = "/custom/temp/dir/unique-file-123.output";
    let message = t.wrapped_message(path).unwrap();
    assert!(message.starts_with("Tool output was too large and has been truncated.\n"));
    assert!(message.contains(&format!("The full output has been saved to: {path}\n")));
    assert!(message.contains(
        "To read the complete output, use the read_file tool with the absolute file path above"
    ));
    assert!(
        message.contains("The truncated output below shows the beginning and end of the content")
    );
    assert!(message.ends_with(&format!("{TRUNCATED_PART_MARKER}{}", t.preview())));
}

// upstream: truncation.ts, the token-aware fallback ("if the wrapped ... output
// is not actually smaller than the original ... keep the original").
#[test]
fn stub_rule_keeps_an_original_the_stub_would_not_shrink() {
    let content = "a".repeat(300);
    let t = plan(&content, &limits(100, None, Keep::Both, None)).unwrap();
    assert_eq!(t.wrapped_message("/tmp/x.output"), None);

    // The comparison is strict: a stub exactly as long as the original is not
    // shorter. Any long run of `a` has the same 51-unit preview here.
    let at = limits(100, None, Keep::Both, None);
    let stub_units = |n: usize| {
        let content = "a".repeat(n);
        let t = truncate(&content, &at).unwrap();
        t.wrapped_message("").map(|m| utf16_len(&m))
    };
    let stub = stub_units(10_000).unwrap();
    assert_eq!(stub_units(stub), None);
    assert_eq!(stub_units(stub + 1), Some(stub));
}

#[test]
fn stub_rule_counts_the_path_in_utf16_units() {
    let content = "a".repeat(1_000);
    let t = plan(&content, &limits(100, None, Keep::Both, None)).unwrap();
    let fixed = utf16_len(&t.wrapped_message("").unwrap());
    let room = 1_000 - fixed;
    // Each emoji is two units: `room / 2` of them fit only if `room` is even.
    let fits = "😀".repeat(room / 2 - 1);
    assert!(t.wrapped_message(&fits).is_some());
    let too_long = "😀".repeat(room.div_ceil(2));
    assert_eq!(t.wrapped_message(&too_long), None);
}

// upstream: truncation.ts, `previewChars` below the separator ("0 produced 39
// characters, 10 produced 42, 40 produced 47").
#[test]
fn preview_budget_pays_for_the_separator_and_drops_it_when_too_small() {
    let content = ["0123456789abcdefghij"; 10].join("\n");
    let at = |preview| limits(100, None, Keep::Both, Some(preview));
    check(&content, &at(0), Some(""));
    // No separator; the head's 2 units cannot hold "...", the tail has 8.
    check(&content, &at(10), Some("...fghij"));
    // Separator plus one unit, too little for any ellipsis.
    check(&content, &at(40), Some(SEPARATOR));
    // 39 is not more than the separator: all 39 units go to content.
    check(
        &content,
        &at(39),
        Some("0123......cdefghij\n0123456789abcdefghij"),
    );
}

// upstream: truncation.ts, `slice(-0) === slice(0)` guard: a tail cut with no
// room after its ellipsis shows the ellipsis only.
#[test]
fn tail_cut_with_room_for_only_the_ellipsis() {
    // Tail budget = 42 - 39 = 3.
    let content = "x".repeat(50);
    check(
        &content,
        &limits(10, None, Keep::Tail, Some(42)),
        Some(&format!("{SEPARATOR}...")),
    );
    check(
        &content,
        &limits(10, None, Keep::Head, Some(42)),
        Some(&format!("...{SEPARATOR}")),
    );
}

#[test]
fn keep_head_tail_and_both() {
    let lines = numbered_lines(10, 2);
    let content = lines.join("\n");
    let at = |keep| limits(100, Some(4), keep, None);
    check(
        &content,
        &at(Keep::Head),
        Some(&format!("00\n01\n02\n03{SEPARATOR}")),
    );
    check(
        &content,
        &at(Keep::Tail),
        Some(&format!("{SEPARATOR}06\n07\n08\n09")),
    );
    check(
        &content,
        &at(Keep::Both),
        Some(&format!("00{SEPARATOR}07\n08\n09")),
    );
    // The stub would be longer than these 29 units: Qwen keeps the original.
    let t = truncate(&content, &at(Keep::Both)).unwrap();
    assert_eq!(t.wrapped_message("/tmp/x.output"), None);
    assert_eq!(t.kept_head(), "00");
    assert_eq!(t.kept_tail(), "07\n08\n09");
    assert_eq!(&content[t.omitted()], "\n01\n02\n03\n04\n05\n06\n");
}

#[test]
fn head_line_exactly_the_remaining_budget_is_cut() {
    // Qwen charges a whole line its length plus a newline, so a 10-unit line
    // does not fit a 10-unit head budget but fits an 11-unit one.
    let content = format!("{}\nrest\nrest", "y".repeat(10));
    check(
        &content,
        &limits(19, None, Keep::Head, Some(49)),
        Some(&format!("yyyyyyy...{SEPARATOR}")),
    );
    check(
        &content,
        &limits(19, None, Keep::Head, Some(50)),
        Some(&format!("yyyyyyyyyy{SEPARATOR}")),
    );
}

#[test]
fn exactly_at_threshold_is_untouched() {
    let at = |threshold, lines| limits(threshold, lines, Keep::Both, None);
    check(&"a".repeat(100), &at(100, None), None);
    check(&"a".repeat(100), &at(100, Some(1)), None);
    assert!(plan(&"a".repeat(101), &at(100, None)).is_some());
    // UTF-16 units, not bytes and not chars.
    check(&"中".repeat(100), &at(100, None), None);
    check(&"😀".repeat(50), &at(100, None), None);
    assert!(plan(&"😀".repeat(51), &at(100, None)).is_some());
    // Exactly at the line cap, counted like `split('\n')`.
    check("a\nb\nc\nd", &at(100, Some(4)), None);
    check(
        "a\nb\nc\n",
        &limits(100, Some(3), Keep::Head, None),
        Some(&format!("a\nb\nc{SEPARATOR}")),
    );
}

#[test]
fn disabled_or_already_truncated_is_untouched() {
    let long = "z".repeat(1_000);
    check(&long, &limits(0, Some(10), Keep::Both, None), None);
    check(&long, &limits(10, Some(0), Keep::Both, None), None);
    let stub = format!("{TOOL_OUTPUT_TRUNCATED_PREFIX}.\n{long}");
    check(&stub, &limits(10, Some(10), Keep::Both, None), None);
    // Only a prefix at position 0 counts, as in Qwen's `startsWith`.
    let mid = format!("output: {TOOL_OUTPUT_TRUNCATED_PREFIX}{long}");
    assert!(plan(&mid, &limits(10, Some(10), Keep::Both, None)).is_some());
}

#[test]
fn emoji_cut_points_round_to_whole_characters() {
    let content = "😀".repeat(100);
    // 49 - 39 = 10 units: 7 before the ellipsis, where Qwen keeps three
    // emoji and half of a fourth. We keep three.
    check(
        &content,
        &limits(50, None, Keep::Head, Some(49)),
        Some(&format!("😀😀😀...{SEPARATOR}")),
    );
    check(
        &content,
        &limits(50, None, Keep::Tail, Some(49)),
        Some(&format!("{SEPARATOR}...😀😀😀")),
    );
    let two = format!("{content}\n{content}");
    // Head 20 / 5 = 4 units: 1 before the ellipsis, half an emoji, so none.
    check(
        &two,
        &limits(50, None, Keep::Both, Some(59)),
        Some(&format!("...{SEPARATOR}...{}", "😀".repeat(6))),
    );
}

#[test]
fn cjk_cut_points_stay_on_char_boundaries() {
    let content = "中文字符测试".repeat(50);
    check(
        &content,
        &limits(100, None, Keep::Both, None),
        Some(&format!("中文字符测试中文字...{SEPARATOR}")),
    );
    let lines = vec!["é中😀ab"; 40].join("\n");
    for keep in [Keep::Both, Keep::Head, Keep::Tail] {
        for preview in 0..80 {
            plan(&lines, &limits(30, Some(12), keep, Some(preview)));
        }
    }
}

#[test]
fn huge_limits_do_not_overflow() {
    check(
        "a\nb\nc",
        &limits(usize::MAX, Some(2), Keep::Both, None),
        Some(&format!("a{SEPARATOR}c")),
    );
    check(
        &"a".repeat(50),
        &limits(10, None, Keep::Head, Some(usize::MAX)),
        Some(&format!("{}{SEPARATOR}", "a".repeat(50))),
    );
}

#[test]
fn preview_larger_than_threshold_may_keep_everything() {
    let content = "first\nsecond\nthird";
    let t = plan(content, &limits(10, None, Keep::Both, Some(1_000))).unwrap();
    assert_eq!(t.preview(), format!("first{SEPARATOR}second\nthird"));
    assert_eq!(&content[t.omitted()], "\n");
    assert_eq!(t.wrapped_message("/tmp/x.output"), None);
}

#[test]
fn empty_and_newline_only_content() {
    check("", &limits(1, Some(1), Keep::Both, None), None);
    check(
        "\n\n\n",
        &limits(100, Some(2), Keep::Both, None),
        Some(SEPARATOR),
    );
    check(
        "\n\n\n",
        &limits(100, Some(2), Keep::Head, None),
        Some(&format!("\n{SEPARATOR}")),
    );
}

#[test]
fn wrapped_message_snapshot() {
    let content = (1..=60)
        .map(|i| format!("line {i:02}: Compiling crate_{i} v0.1.0"))
        .collect::<Vec<_>>()
        .join("\n");
    let t = plan(&content, &limits(400, Some(10), Keep::Both, None)).unwrap();
    let message = t
        .wrapped_message("/home/user/.qwen/tmp/0f3a9c/run_shell_command_1a2b3c4d5e6f.output")
        .unwrap();
    insta::assert_snapshot!("wrapped_message", message);
}

#[test]
fn preview_snapshots() {
    let content = format!(
        "$ cargo test\n{}\nerror: test failed, to rerun pass `--lib`\nexit code 101",
        "running 1 test ... 中文 😀 ".repeat(20)
    );
    // One snapshot for the three directions, labelled, so the separator's
    // leading and trailing newlines are not at the edges of the file.
    let mut all = String::new();
    for (name, keep) in [
        ("both", Keep::Both),
        ("head", Keep::Head),
        ("tail", Keep::Tail),
    ] {
        let t = plan(&content, &limits(200, Some(3), keep, Some(150))).unwrap();
        all.push_str(&format!("==== keep {name} ====\n{}\n", t.preview()));
    }
    insta::assert_snapshot!("previews", all);
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ab\\n中😀é]{0,80}",
        "(?s).{0,120}",
        proptest::collection::vec("[a😀\\n]{0,3}|[x]{0,40}", 0..40).prop_map(|v| v.concat()),
        // Long runs of one short pattern: long lines of wide chars, or many
        // short lines.
        ("[a中😀\\n]{1,4}", 1usize..300).prop_map(|(p, n)| p.repeat(n)),
    ]
}

fn any_keep() -> impl Strategy<Value = Keep> {
    prop_oneof![Just(Keep::Both), Just(Keep::Head), Just(Keep::Tail)]
}

fn any_limits() -> impl Strategy<Value = Limits> {
    (
        0usize..150,
        proptest::option::of(0usize..15),
        any_keep(),
        proptest::option::of(0usize..150),
    )
        .prop_map(|(threshold, lines, keep, preview)| limits(threshold, lines, keep, preview))
}

proptest! {
    /// The units-only kernel counts what the combined one and JavaScript's
    /// `.length` count, across the kernel's 32-byte rows and 127-row blocks.
    #[test]
    fn the_units_kernel_is_utf16_length(content in any_text(), copies in 1usize..200) {
        let text = content.repeat(copies);
        let bytes = text.as_bytes();
        prop_assert_eq!(measure::units(bytes), text.encode_utf16().count());
        prop_assert_eq!(measure::units(bytes), measure::measure(bytes).units);
    }

    /// The fast walk agrees with the literal model, and every plan is within
    /// budget, whole-character, a prefix plus a suffix plus markers.
    #[test]
    fn walk_agrees_with_model_and_stays_in_budget(content in any_text(), limits in any_limits()) {
        plan(&content, &limits);
    }

    #[test]
    fn content_within_both_limits_is_untouched(
        content in any_text(),
        slack in 0usize..4,
        cap_lines in any::<bool>(),
        keep in any_keep(),
    ) {
        let threshold = utf16_len(&content) + slack + 1;
        let lines = cap_lines.then(|| content.split('\n').count() + slack);
        prop_assert!(truncate(&content, &limits(threshold, lines, keep, Some(0))).is_none());
    }

    #[test]
    fn wrapped_message_is_shorter_or_absent(
        content in any_text(),
        limits in any_limits(),
        path in "(?s).{0,40}",
    ) {
        if let Some(t) = truncate(&content, &limits) {
            match t.wrapped_message(&path) {
                Some(m) => {
                    prop_assert!(utf16_len(&m) < utf16_len(&content));
                    prop_assert!(m.contains(&path));
                    let tail = format!("{TRUNCATED_PART_MARKER}{}", t.preview());
                    prop_assert!(m.ends_with(&tail));
                }
                None => {
                    let fixed = "Tool output was too large and has been truncated.\nThe full \
                        output has been saved to: \nTo read the complete output, use the \
                        read_file tool with the absolute file path above.\nThe truncated output \
                        below shows the beginning and end of the content. The marker '... \
                        [CONTENT TRUNCATED] ...' indicates where content was removed.\n\n\
                        Truncated part of the output:\n";
                    let would_be = utf16_len(fixed) + utf16_len(&path) + t.preview_units();
                    prop_assert!(would_be >= utf16_len(&content));
                }
            }
        }
    }
}
