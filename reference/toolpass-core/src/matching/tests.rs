//! Tests for the matcher: Qwen's own cases, the tiers, byte offsets in
//! multibyte text, and properties checked against the slow model.

use proptest::prelude::*;

use super::*;
use crate::testkit::{check_matcher, model_find_matched_slice};

/// Normalizes and checks both strings.
fn check(file: &str, old: &str, new: &str, expect_old: &str, expect_new: &str) {
    let n = normalize_edit_strings(Some(file), old, new);
    assert_eq!((n.old_string, n.new_string), (expect_old, expect_new));
    assert_eq!(check_matcher(file, old), Ok(()));
}

fn tier(file: &str, old: &str) -> Option<MatchTier> {
    find_matched_slice(file, old).map(|m| m.tier)
}

const FILE: &str = "const one = 1;\nconst two = 2;\n";

#[test]
fn returns_literal_matches_unchanged() {
    // upstream: editHelper.test.ts "returns literal matches unchanged"
    check(
        FILE,
        "const two = 2;",
        "  const two = 42;",
        "const two = 2;",
        "  const two = 42;",
    );
    assert_eq!(tier(FILE, "const two = 2;"), Some(MatchTier::Literal));
}

#[test]
fn normalizes_smart_quotes_to_match_on_disk_text() {
    // upstream: editHelper.test.ts "normalizes smart quotes to match on-disk text"
    check(
        "const greeting = 'Don't';\n",
        "const greeting = ‘Don’t’;",
        "const greeting = \"Hello\";",
        "const greeting = 'Don't';",
        "const greeting = \"Hello\";",
    );
}

#[test]
fn falls_back_to_original_strings_when_no_match_is_found() {
    // upstream: editHelper.test.ts "falls back to original strings when no match is found"
    let n = normalize_edit_strings(Some(FILE), "missing text", "replacement");
    assert_eq!(
        (n.old_string, n.new_string, n.matched),
        ("missing text", "replacement", None)
    );
}

#[test]
fn matches_unicode_dash_variants_and_preserves_new_string() {
    // upstream: editHelper.test.ts "matches unicode dash variants and preserves newString"
    check(
        "const range = \"1-2\";\n",
        "const range = \"1\u{2013}2\";",
        "const range = \"3\u{2013}5\";   ",
        "const range = \"1-2\";",
        "const range = \"3\u{2013}5\";   ",
    );
}

#[test]
fn treats_non_breaking_spaces_as_regular_spaces() {
    // upstream: editHelper.test.ts "treats non-breaking spaces as regular spaces"
    check(
        "const label = \"hello world\";\n",
        "const label = \"hello\u{a0}world\";",
        "const label = \"hi\u{a0}world\";",
        "const label = \"hello world\";",
        "const label = \"hi\u{a0}world\";",
    );
}

#[test]
fn drops_trailing_newline_from_new_content_when_the_file_lacks_it() {
    // upstream: editHelper.test.ts "drops trailing newline from new content when the file lacks it"
    check(
        "console.log(\"hi\")",
        "console.log(\"hi\")\n",
        "console.log(\"bye\")\n",
        "console.log(\"hi\")",
        "console.log(\"bye\")",
    );
    let m = find_matched_slice("console.log(\"hi\")", "console.log(\"hi\")\n").unwrap();
    assert_eq!(m.tier, MatchTier::Lines(LinePass::Exact));
    assert!(m.removed_trailing_final_empty_line);
}

#[test]
fn does_not_extend_the_matched_slice() {
    // upstream: editHelper.test.ts "does not extend the matched slice when $name"
    let cases = [
        // deleting a fuzzy line before a blank line
        (
            "before\nremove-me \n\nafter\n",
            "remove-me\n",
            "",
            "remove-me \n",
        ),
        // replacing a fuzzy line before a blank line
        (
            "before\nremove-me \n\nafter\n",
            "remove-me\n",
            "replacement\n",
            "remove-me \n",
        ),
        // matching a multiline string before a blank line
        (
            "before\nconst value = `first \nsecond`;\n\nafter\n",
            "const value = `first\nsecond`;\n",
            "const value = `replacement`;\n",
            "const value = `first \nsecond`;\n",
        ),
        // consuming only the requested multiple newlines
        (
            "before\nremove-me \n\n\nafter\n",
            "remove-me\n\n",
            "",
            "remove-me \n\n",
        ),
        // preserving a following whitespace-only line
        (
            "before\nremove-me \n \nafter\n",
            "remove-me\n",
            "",
            "remove-me \n",
        ),
        // matching a fuzzy line at EOF with a newline
        ("before\nremove-me \n", "remove-me\n", "", "remove-me \n"),
        // preserving a literal match before a blank line
        (
            "before\nremove-me\n\nafter\n",
            "remove-me\n",
            "",
            "remove-me\n",
        ),
        // matching without a requested final newline
        (
            "before\nremove-me \n\nafter\n",
            "remove-me  ",
            "",
            "remove-me ",
        ),
    ];
    for (content, old, new, canonical) in cases {
        check(content, old, new, canonical, new);
    }
}

#[test]
fn keeps_the_fuzzy_eof_fallback_newline_adjustment() {
    // upstream: editHelper.test.ts "keeps the fuzzy EOF fallback newline adjustment"
    check(
        "before\nremove-me ",
        "remove-me\n",
        "replacement\n",
        "remove-me ",
        "replacement",
    );
}

#[test]
fn keeps_repeated_fuzzy_lines_visible_to_occurrence_counting() {
    // upstream: editHelper.test.ts "keeps repeated fuzzy lines visible to occurrence counting"
    let content = "a \n\na \nb\n";
    check(content, "a\n", "replacement\n", "a \n", "replacement\n");
    assert_eq!(content.matches("a \n").count(), 2);
}

#[test]
fn preserves_trailing_whitespace_in_new_string() {
    // upstream: editHelper.test.ts "trailing whitespace preservation in newString" (issue #1618)
    check(
        "value = 1;\n",
        "value = 1;\n",
        "value = 1;\t\n",
        "value = 1;\n",
        "value = 1;\t\n",
    );
    check("text\n", "text\n", "text   \n", "text\n", "text   \n");
    // "preserves newString trailing whitespace even when oldString is fuzzy matched"
    check(
        "value = 1;\n",
        "value = 1;   \n",
        "value = 2;   \n",
        "value = 1;\n",
        "value = 2;   \n",
    );
    // "preserves trailing whitespace in multi-line template literals"
    check(
        "const s = \"\";\n",
        "const s = \"\";",
        "const s = `line1  \nline2`;",
        "const s = \"\";",
        "const s = `line1  \nline2`;",
    );
    // "still supports fuzzy matching after trailing whitespace was added in previous edit"
    check(
        "value = 1;   \n",
        "value = 1;\n",
        "value = 2;\n",
        "value = 1;   \n",
        "value = 2;\n",
    );
}

#[test]
fn no_file_or_empty_old_string_leaves_both_strings_alone() {
    // upstream: editHelper.test.ts "preserves trailing whitespace when creating new file"
    let n = normalize_edit_strings(None, "", "content with trailing tab\t\n");
    assert_eq!(
        (n.old_string, n.new_string),
        ("", "content with trailing tab\t\n")
    );
    let n = normalize_edit_strings(Some("abc"), "", "x");
    assert_eq!((n.old_string, n.new_string, n.matched), ("", "x", None));
}

#[test]
fn each_tier_is_reported() {
    assert_eq!(tier("a “b” c", "“b”"), Some(MatchTier::Literal));
    assert_eq!(tier("a “b” c", "\"b\""), Some(MatchTier::Folded));
    assert_eq!(
        tier("x  \ny\n", "x\ny"),
        Some(MatchTier::Lines(LinePass::TrimEnd))
    );
    assert_eq!(
        tier("x “q”  \ny\n", "x \"q\"\ny"),
        Some(MatchTier::Lines(LinePass::FoldTrimEnd))
    );
    assert_eq!(tier("a\nb", "b\n"), Some(MatchTier::Lines(LinePass::Exact)));
    assert_eq!(tier("abc", "abd"), None);
    assert_eq!(tier("abc", ""), None);
}

#[test]
fn leading_whitespace_is_never_relaxed() {
    assert_eq!(
        tier("    return x;\n", "  return x;\n"),
        Some(MatchTier::Literal)
    );
    // As a whole line, though, the indentation must agree.
    assert_eq!(tier("    return x; \n", "  return x;\n"), None);
    assert_eq!(tier("\treturn x; \n", "    return x;\n"), None);
}

#[test]
fn line_passes_match_crlf_lines_through_trim_end() {
    // A CR is whitespace to trimEnd, so an LF needle matches CRLF lines; the
    // slice keeps the file's CRs.
    let hay = "a\r\nfoo \r\nbar\r\n";
    let m = find_matched_slice(hay, "foo\nbar").unwrap();
    assert_eq!(m.slice(hay), "foo \r\nbar\r");
}

#[test]
fn stronger_pass_wins_over_an_earlier_window() {
    // TrimEnd matches at line 0 only under the fold; the later window matches
    // with trailing space trimmed, and TrimEnd is tried first everywhere.
    let hay = "it’s \nend\nit's \nend\n";
    let m = find_matched_slice(hay, "it's\nend\n").unwrap();
    assert_eq!(m.tier, MatchTier::Lines(LinePass::TrimEnd));
    assert_eq!(m.range.start, "it’s \nend\n".len());
}

#[test]
fn multibyte_text_before_and_after_the_span_keeps_offsets_right() {
    // The issue's test: a line with multibyte characters on both sides of a
    // span that only matches through the fold.
    let hay = "前缀 “quote” — it’s 好的 ✓ 後\n";
    let n = normalize_edit_strings(Some(hay), "— it's 好的", "- it is fine");
    assert_eq!(n.old_string, "— it’s 好的");
    let m = n.matched.unwrap();
    assert_eq!(m.tier, MatchTier::Folded);
    let mut edited = hay.to_owned();
    edited.replace_range(m.range, n.new_string);
    assert_eq!(edited, "前缀 “quote” - it is fine ✓ 後\n");
}

#[test]
fn wide_matches_near_the_end_of_the_file_stay_in_bounds() {
    assert_eq!(check_matcher("x’", "x'"), Ok(()));
    assert_eq!(check_matcher("’", "''"), Ok(()));
    assert_eq!(check_matcher("a\n’’", "'’\n"), Ok(()));
    assert_eq!(check_matcher("\n", "\n\n"), Ok(()));
    assert_eq!(check_matcher("", "\n"), Ok(()));
}

/// Text built from the characters the matcher treats specially.
fn tricky_text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(crate::testkit::MATCHER_ALPHABET.to_vec()),
        0..max,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_the_model(hay in tricky_text(60), needle in tricky_text(12)) {
        prop_assert_eq!(check_matcher(&hay, &needle), Ok(()));
    }

    #[test]
    fn agrees_with_the_model_on_needles_cut_from_the_haystack(
        hay in tricky_text(80), a in 0usize..80, b in 0usize..80,
    ) {
        let chars: Vec<char> = hay.chars().collect();
        let (a, b) = (a.min(chars.len()), b.min(chars.len()));
        let needle: String = chars[a.min(b)..a.max(b)].iter().map(|&c| crate::fold::fold_char(c)).collect();
        prop_assert_eq!(check_matcher(&hay, &needle), Ok(()));
    }

    #[test]
    fn an_exact_substring_always_hits_the_literal_tier(
        hay in "\\PC{0,200}", a in 0usize..200, len in 1usize..40,
    ) {
        let chars: Vec<char> = hay.chars().collect();
        prop_assume!(!chars.is_empty());
        let a = a % chars.len();
        let needle: String = chars[a..(a + len).min(chars.len())].iter().collect();
        let m = find_matched_slice(&hay, &needle).unwrap();
        prop_assert_eq!(m.tier, MatchTier::Literal);
        prop_assert_eq!(m.slice(&hay), needle.as_str());
    }

    #[test]
    fn the_match_is_always_a_slice_of_the_file(hay in "\\PC{0,120}", needle in "\\PC{0,20}") {
        if let Some(m) = find_matched_slice(&hay, &needle) {
            prop_assert!(hay.get(m.range.clone()).is_some());
        }
        prop_assert_eq!(find_matched_slice(&hay, &needle), model_find_matched_slice(&hay, &needle));
    }
}

/// A file of short code-like lines over a few words, so windows repeat and
/// anchors hit many times, with trailing whitespace, folds and CRs mixed in.
fn code_lines() -> impl Strategy<Value = Vec<String>> {
    let word = prop::sample::select(vec![
        "x", "let", "}", "it's", "it’s", "a—b", "a-b", "“q”", "\"q\"", "",
    ]);
    let line = (
        prop::sample::select(vec!["", "  ", "\t"]),
        proptest::collection::vec(word, 0..3),
        prop::sample::select(vec!["", " ", "  ", "\r", "\u{a0}", "\t"]),
    )
        .prop_map(|(indent, words, trail)| format!("{indent}{}{trail}", words.join(" ")));
    proptest::collection::vec(line, 0..16)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn agrees_with_the_model_on_line_windows(
        lines in code_lines(), start in 0usize..16, len in 1usize..4,
        strip_trailing in any::<bool>(), fold in any::<bool>(), newline in any::<bool>(),
    ) {
        let hay = lines.join("\n");
        let start = start.min(lines.len());
        let window = &lines[start..(start + len).min(lines.len())];
        let mut needle: String = window
            .iter()
            .map(|l| if strip_trailing { crate::fold::trim_end_js(l).to_owned() } else { format!("{l} ") })
            .collect::<Vec<_>>()
            .join("\n");
        if fold {
            needle = crate::fold::fold_str(&needle);
        }
        if newline {
            needle.push('\n');
        }
        prop_assert_eq!(check_matcher(&hay, &needle), Ok(()));
    }
}
