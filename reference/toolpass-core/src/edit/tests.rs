//! Tests for the edit decision: Qwen's own `applyReplacement` and
//! `calculateEdit` cases, line endings, and the literal-`$` and
//! bytes-outside-the-span properties.

use proptest::prelude::*;

use super::*;

const PATH: &str = "/root/file.txt";

/// Plans an edit of `current` (None: no file) and returns the result.
fn check(
    current: Option<&str>,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<EditPlan, EditError> {
    calculate_edit(
        current,
        &EditRequest {
            file_path: PATH,
            old_string: old,
            new_string: new,
            replace_all,
        },
    )
}

fn content(current: &str, old: &str, new: &str) -> String {
    check(Some(current), old, new, false).unwrap().new_content
}

// upstream: edit.test.ts describe('applyReplacement')
#[test]
fn apply_replacement_cases() {
    // "should return newString if isNewFile is true"
    assert_eq!(apply_replacement(None, "old", "new", true), "new");
    assert_eq!(
        apply_replacement(Some("existing"), "old", "new", true),
        "new"
    );
    // "should return newString if currentContent is null and oldString is empty (defensive)"
    assert_eq!(apply_replacement(None, "", "new", false), "new");
    // "should return empty string if currentContent is null and oldString is not empty (defensive)"
    assert_eq!(apply_replacement(None, "old", "new", false), "");
    // "should replace oldString with newString in currentContent"
    assert_eq!(
        apply_replacement(Some("hello old world old"), "old", "new", false),
        "hello new world new"
    );
    // "should return currentContent if oldString is empty and not a new file"
    assert_eq!(
        apply_replacement(Some("hello world"), "", "new", false),
        "hello world"
    );
}

// upstream: edit.test.ts "should treat $ ... literally" cases
#[test]
fn dollar_sequences_stay_literal() {
    let cases = [
        (
            "price is $100 and pattern end is ' '",
            "price is $100",
            "price is $200",
            "price is $200 and pattern end is ' '",
        ),
        ("foo", "foo", "bar$'baz", "bar$'baz"),
        (
            "hello world",
            "hello",
            "$&-replacement",
            "$&-replacement world",
        ),
        (
            "prefix-middle-suffix",
            "middle",
            "new$`content",
            "prefix-new$`content-suffix",
        ),
        (
            "test string",
            "test",
            "$1$2replacement",
            "$1$2replacement string",
        ),
        (
            "normal text replacement",
            "text",
            "string",
            "normal string replacement",
        ),
        (
            "foo bar foo baz",
            "foo",
            "test$'end",
            "test$'end bar test$'end baz",
        ),
        (
            "| select('match', '^[sv]d[a-z]$')",
            "'^[sv]d[a-z]$'",
            "'^[sv]d[a-z]$' # updated",
            "| select('match', '^[sv]d[a-z]$' # updated)",
        ),
        (
            "test content",
            "nothing",
            "replacement$'text",
            "test content",
        ),
        ("price value", "value", "$$100", "price $$100"),
    ];
    for (current, old, new, expected) in cases {
        assert_eq!(
            apply_replacement(Some(current), old, new, false),
            expected,
            "{new}"
        );
    }
}

// upstream: editHelper.test.ts describe('countOccurrences')
#[test]
fn counts_non_overlapping_occurrences() {
    assert_eq!(count_occurrences("abc", ""), 0);
    assert_eq!(count_occurrences("abc", "z"), 0);
    assert_eq!(count_occurrences("aaaa", "aa"), 2);
    assert_eq!(count_occurrences("aaa", "aa"), 1);
}

// upstream: editHelper.test.ts describe('maybeAugmentOldStringForDeletion')
#[test]
fn deletion_eats_the_following_newline() {
    let file = "console.log(\"hi\")\nconsole.log(\"bye\")\n";
    let cases = [
        // "appends newline when deleting text followed by newline"
        (file, "console.log(\"hi\")", "", "console.log(\"hi\")\n"),
        // "leaves strings untouched when not deleting"
        (
            file,
            "console.log(\"hi\")",
            "replacement",
            "console.log(\"hi\")",
        ),
        // "does not append newline when file lacks the variant"
        (
            "console.log(\"hi\")",
            "console.log(\"hi\")",
            "",
            "console.log(\"hi\")",
        ),
        // "no-ops when the old string already ends with a newline"
        (file, "console.log(\"bye\")\n", "", "console.log(\"bye\")\n"),
    ];
    for (f, old, new, expected) in cases {
        assert_eq!(
            maybe_augment_old_string_for_deletion(Some(f), old, new),
            expected
        );
    }
    assert_eq!(
        content(file, "console.log(\"hi\")", ""),
        "console.log(\"bye\")\n"
    );
}

// upstream: edit.test.ts "should edit an existing file and return diff with fileName"
#[test]
fn edits_an_existing_file() {
    let plan = check(Some("This is some old text."), "old", "new", false).unwrap();
    assert_eq!(plan.new_content, "This is some new text.");
    assert_eq!(plan.occurrences, 1);
    assert!(
        plan.success_message(PATH)
            .contains("Showing lines 1-1 of 1 from the edited file:")
    );
}

// upstream: edit.test.ts "should create a new file if old_string is empty and file does not exist, ..."
#[test]
fn creates_a_new_file() {
    let plan = check(None, "", "Content for the new file.", false).unwrap();
    assert!(plan.is_new_file);
    assert_eq!(plan.new_content, "Content for the new file.");
    insta::assert_snapshot!(plan.success_message(PATH));
}

// upstream: edit.test.ts "should successfully replace multiple occurrences when replace_all is true"
#[test]
fn replace_all_replaces_every_occurrence() {
    let plan = check(Some("old text\nold text\nold text"), "old", "new", true).unwrap();
    assert_eq!(plan.new_content, "new text\nnew text\nnew text");
    assert_eq!(plan.occurrences, 3);
}

/// `(file, old_string, new_string, error)`, one per kind, in Qwen's order.
// upstream: edit.test.ts describe('Error Scenarios') and the execute error cases
const ERRORS: &[(Option<&str>, &str, &str, EditErrorKind)] = &[
    (None, "any", "new", EditErrorKind::FileNotFound),
    (
        Some("existing content"),
        "",
        "new content",
        EditErrorKind::AttemptToCreateExistingFile,
    ),
    (
        Some("content"),
        "not-found",
        "new",
        EditErrorKind::NoOccurrenceFound,
    ),
    (
        Some("one one two"),
        "one",
        "new",
        EditErrorKind::ExpectedOccurrenceMismatch,
    ),
    (
        Some("content"),
        "content",
        "content",
        EditErrorKind::NoChange,
    ),
    // "should return EDIT_NO_CHANGE error if replacement results in identical
    // content": the double space means no tier matches.
    (
        Some("line 1\nline  2\nline 3"),
        "line 1\nline 2\nline 3",
        "line 1\nnew line 2\nline 3",
        EditErrorKind::NoOccurrenceFound,
    ),
];

#[test]
fn each_error_kind_with_qwens_messages() {
    let mut messages = Vec::new();
    for &(current, old, new, kind) in ERRORS {
        let e = check(current, old, new, false).unwrap_err();
        assert_eq!(e.kind(), kind, "{current:?}: {old:?} -> {new:?}");
        messages.push(format!(
            "{:?}\n  llm: {}\n  display: {}",
            e.kind(),
            e.llm_message(),
            e.display_message()
        ));
    }
    insta::assert_snapshot!(messages.join("\n"));
}

#[test]
fn an_empty_old_string_on_an_existing_file_is_refused_even_when_it_matches_nothing() {
    // Qwen checks the *original* old_string for emptiness after counting.
    let e = check(Some(""), "", "x", false).unwrap_err();
    assert_eq!(e.kind(), EditErrorKind::AttemptToCreateExistingFile);
}

#[test]
fn identical_strings_after_normalization_are_no_change() {
    // The fold makes the canonical old_string equal to new_string.
    let e = check(Some("it’s here\n"), "it's here", "it’s here", false).unwrap_err();
    assert_eq!(e.kind(), EditErrorKind::NoChange);
}

/// `(file, old_string, new_string, resulting file)`: edits whose every
/// byte of output is pinned down.
const SPLICES: &[(&str, &str, &str, &str)] = &[
    // A fuzzy match writes the model's new_string and keeps the surrounding
    // bytes (the curly quotes and trailing spaces of the old line go).
    (
        "fn a() {\n    let s = “x”;   \n}\n",
        "    let s = \"x\";\n",
        "    let s = \"y\";\n",
        "fn a() {\n    let s = \"y\";\n}\n",
    ),
    // A CRLF file gets CRLF in the inserted text.
    (
        "a\r\nold\r\nb\r\n",
        "old\nb",
        "new\nlines\nb",
        "a\r\nnew\r\nlines\r\nb\r\n",
    ),
    // Beyond Qwen: mixed line endings keep every byte outside the span
    // (Qwen's ensureCrlfLineEndings would turn the lone "\n"s into "\r\n").
    (
        "one\r\ntwo\nthree\r\nfour\nfive\r",
        "three",
        "3",
        "one\r\ntwo\n3\r\nfour\nfive\r",
    ),
    (
        "one\r\ntwo\nthree\r\nfour\nfive\r",
        "two\nthree\nfour",
        "2\n4",
        "one\r\n2\r\n4\nfive\r",
    ),
    // A CRLF deletion takes the whole line break.
    (
        "keep\r\ndrop me\r\nkeep too\r\n",
        "drop me",
        "",
        "keep\r\nkeep too\r\n",
    ),
    // A span starting or ending at a line break includes the CR.
    ("a\r\nb\r\nc", "\nb", "\nB", "a\r\nB\r\nc"),
    ("a\r\nb\r\nc", "a\n", "A\n", "A\r\nb\r\nc"),
];

#[test]
fn splices_write_exactly_the_expected_bytes() {
    for &(file, old, new, expected) in SPLICES {
        assert_eq!(
            content(file, old, new),
            expected,
            "{file:?}: {old:?} -> {new:?}"
        );
    }
}

#[test]
fn crlf_file_snippet_is_built_from_lf_text_like_qwen() {
    let plan = check(Some("a\r\nold\r\nb\r\n"), "old", "new", false).unwrap();
    let snippet = plan.snippet.unwrap();
    assert_eq!(snippet.content, "a\nnew\nb\n");
    assert_eq!(snippet.total_lines, 4);
}

/// Text over a small alphabet with CRs, LFs and multibyte characters.
fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec!['a', 'b', ' ', '\n', '\r', '’', '好', '$']),
        0..max,
    )
    .prop_map(|c| c.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn dollar_in_new_string_is_always_literal(
        prefix in "[a-z ]{0,10}", suffix in "[a-z ]{0,10}", new in "[$&`'0-9a-z]{0,12}",
    ) {
        let file = format!("{prefix}<TARGET>{suffix}");
        let out = content(&file, "<TARGET>", &new);
        prop_assert_eq!(out, format!("{prefix}{new}{suffix}"));
    }

    #[test]
    fn bytes_outside_the_replaced_span_are_unchanged(
        file in text(60), start in 0usize..60, len in 1usize..12, new in text(8),
    ) {
        let chars: Vec<char> = file.chars().collect();
        prop_assume!(!chars.is_empty());
        let start = start % chars.len();
        let old: String = chars[start..(start + len).min(chars.len())].iter().collect();
        if let Ok(plan) = check(Some(&file), &old, &new, false) {
            // A unique match in text without CRLF pairs: the result is
            // exactly prefix + new + suffix around the replaced slice.
            prop_assume!(!file.contains("\r\n"));
            let at = file.find(plan.old_string.as_str()).unwrap();
            let (before, after) = (&file[..at], &file[at + plan.old_string.len()..]);
            prop_assert_eq!(plan.new_content, format!("{before}{new}{after}"));
        }
    }

    #[test]
    fn crlf_splice_only_changes_the_span(
        head in text(20), tail in text(20), new in text(8),
    ) {
        // "<X>" is unique: the alphabet has no '<'. A non-empty new_string
        // keeps the deletion rule (which eats a newline) out of the way.
        prop_assume!(!new.is_empty());
        let file = format!("{head}<X>{tail}");
        let out = content(&file, "<X>", &new);
        let inserted = if file.contains("\r\n") { crate::text::ensure_crlf(&new) } else { new.clone() };
        prop_assert_eq!(out, format!("{head}{inserted}{tail}"));
    }
}
