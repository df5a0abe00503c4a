//! The human report's diff: invisible characters shown, the newline mark
//! only where the two sides differ in it; the actual text a needle or a
//! pattern missed, shown whole when short and cut when long.

use toolpass::report::text::{Style, actual_heading, diff, excerpt, visible};

#[test]
fn visible_shows_the_characters_a_tool_layer_trips_on() {
    assert_eq!(
        visible("a\u{a0}b\r\n\tc\u{200b}\u{feff} d"),
        "a\\u{00a0}b\\r\n\tc\\u{200b}\\u{feff} d"
    );
    assert_eq!(visible("“curly” — plain"), "“curly” — plain");
}

#[test]
fn a_diff_marks_lines_and_a_missing_final_newline_only_when_it_differs() {
    let plain = Style::new(false);
    assert_eq!(
        diff("a\nb\n", "a\nc\n", plain),
        "      - expected + actual\n        a\n      - b\n      + c\n"
    );
    assert_eq!(
        diff("x\n", "x", plain),
        "      - expected + actual\n      - x\n      + x  (no newline at end)\n"
    );
    assert_eq!(
        diff("crlf\r\n", "crlf\n", plain),
        "      - expected + actual\n      - crlf\\r\n      + crlf\n"
    );
}

#[test]
fn a_short_actual_text_is_shown_whole_with_invisible_characters_visible() {
    assert_eq!(actual_heading("one\r\ntwo\u{1b}[2J"), "actual (2 lines):");
    assert_eq!(
        excerpt("one\r\ntwo\u{1b}[2J"),
        ["one\\r", "two\\u{001b}[2J"]
    );
    assert_eq!(actual_heading(""), "actual (0 lines):");
    assert!(excerpt("").is_empty());
}

#[test]
fn a_long_actual_text_keeps_its_ends_and_says_what_it_left_out() {
    let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
    let shown = excerpt(&text);
    assert_eq!(shown.len(), 41);
    assert_eq!((&shown[0][..], &shown[19][..]), ("line 1", "line 20"));
    assert_eq!(shown[20], "… (60 lines left out)");
    assert_eq!((&shown[21][..], &shown[40][..]), ("line 81", "line 100"));
    // One huge line, cut on a character boundary.
    let wide = "é".repeat(1_000);
    let [line] = &excerpt(&wide)[..] else {
        panic!("one line expected");
    };
    assert_eq!(line.chars().filter(|&c| c == 'é').count(), 240);
    assert!(line.ends_with("… (760 more characters)"), "{line}");
}
