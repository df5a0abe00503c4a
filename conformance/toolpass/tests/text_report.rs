//! The human report's diff: invisible characters shown, the newline mark
//! only where the two sides differ in it.

use toolpass::report::text::{Style, diff, visible};

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
