//! Text cleaning as Qwen Code does it, with JavaScript's string semantics
//! where they differ from Rust's: `strip-ansi`, the control-character filters
//! of a background shell's notice, `trim`/`trimEnd`, and the byte counts Qwen
//! prints (`formatMemoryUsage`).

use std::sync::LazyLock;

use regex::Regex;

/// The pattern of `ansi-regex` 6, which Qwen's `strip-ansi` uses
/// (`node_modules/ansi-regex/index.js` in its bundle): an OSC sequence up to
/// its string terminator, or a CSI / ESC sequence. JavaScript's `\d` is an
/// ASCII digit, so it is written `[0-9]` here (Rust's `\d` is Unicode).
const ANSI_PATTERN: &str = concat!(
    r"(?:\x{1B}\][\s\S]*?(?:\x{07}|\x{1B}\x{5C}|\x{9C}))",
    "|",
    r"[\x{1B}\x{9B}][\[\]()#;?]*(?:[0-9]{1,4}(?:[;:][0-9]{0,4})*)?[0-9A-PR-TZcf-nq-uy=><~]",
);

static ANSI: LazyLock<Regex> = LazyLock::new(|| {
    // The pattern is a constant; a test builds it, so this cannot fail at run time.
    Regex::new(ANSI_PATTERN).unwrap_or_else(|_| unreachable!("ANSI_PATTERN is valid"))
});

/// `stripAnsi(text)`: removes escape sequences and nothing else (a bare
/// `\r`, a backspace or a bell stay).
#[must_use]
pub fn strip_ansi(text: &str) -> String {
    ANSI.replace_all(text, "").into_owned()
}

/// Whether JavaScript's `\s` (and so `trim`) matches `c`: Unicode white space
/// and U+FEFF, but not U+0085, which Rust's `char::is_whitespace` includes.
#[must_use]
pub fn is_js_whitespace(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{FEFF}'
}

/// `text.trim()`.
#[must_use]
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_whitespace)
}

/// `text.trimEnd()`.
#[must_use]
pub fn js_trim_end(text: &str) -> &str {
    text.trim_end_matches(is_js_whitespace)
}

/// Bidirectional controls Qwen drops from text it shows (`isBidiControlChar`
/// in `utils/terminalSafe.ts`): U+202A..U+202E and U+2066..U+2069.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// C0 controls and C1 controls (DEL, U+007F, is kept, as in Qwen).
fn is_c0_or_c1(c: char) -> bool {
    (c as u32) < 0x20 || (0x80..=0x9F).contains(&(c as u32))
}

/// `stripOutputControlChars` (`services/backgroundShellRegistry.ts`): drops
/// control and bidi characters but keeps tab, line feed and carriage return,
/// so an output tail cannot inject escape sequences into a notice.
#[must_use]
pub fn strip_output_controls(text: &str) -> String {
    text.chars()
        .filter(|&c| matches!(c, '\t' | '\n' | '\r') || !(is_c0_or_c1(c) || is_bidi_control(c)))
        .collect()
}

/// `stripDisplayControlChars` (`utils/terminalSafe.ts`): as
/// [`strip_output_controls`] but keeping only the tab.
#[must_use]
pub fn strip_display_controls(text: &str) -> String {
    text.chars()
        .filter(|&c| c == '\t' || !(is_c0_or_c1(c) || is_bidi_control(c)))
        .collect()
}

/// The length of `text` in UTF-16 code units, JavaScript's `length`.
#[must_use]
pub fn js_length(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// `text.slice(0, units)` in UTF-16 code units, never splitting a surrogate
/// pair (JavaScript would leave half of one; Rust strings cannot hold it).
#[must_use]
pub fn js_prefix(text: &str, units: usize) -> &str {
    let mut seen = 0;
    for (at, c) in text.char_indices() {
        seen += c.len_utf16();
        if seen > units {
            return &text[..at];
        }
    }
    text
}

/// `formatMemoryUsage(bytes)` (`utils/formatters.ts`): KB below 1024 KB, MB
/// below 1024 MB, else GB, with JavaScript's `toFixed` rounding.
#[must_use]
pub fn format_memory(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    // Byte counts of one run stay far below 2^53, where f64 is exact.
    #[allow(clippy::cast_precision_loss)]
    let bytes = bytes as f64;
    let rounded = |value: f64| (value * 10.0).round() / 10.0;
    if rounded(bytes / KB) < 1024.0 {
        format!("{:.1} KB", bytes / KB)
    } else if rounded(bytes / (KB * KB)) < 1024.0 {
        format!("{:.1} MB", bytes / (KB * KB))
    } else {
        format!("{:.2} GB", bytes / (KB * KB * KB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ansi_pattern_compiles() {
        assert!(Regex::new(ANSI_PATTERN).is_ok());
    }

    #[test]
    fn strip_ansi_removes_colours_cursor_moves_and_osc_titles_only() {
        assert_eq!(strip_ansi("\x1b[31mred\x1b[0m"), "red");
        assert_eq!(strip_ansi("a\x1b[2Kb\x1b[1A"), "ab");
        assert_eq!(strip_ansi("\x1b]0;title\x07text"), "text");
        assert_eq!(
            strip_ansi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"),
            "link"
        );
        assert_eq!(strip_ansi("cr\rbs\x08bell\x07"), "cr\rbs\x08bell\x07");
        assert_eq!(strip_ansi("\u{9b}31mc1"), "c1");
    }

    #[test]
    fn js_trim_follows_javascript_white_space() {
        assert_eq!(js_trim("\u{feff} x \n"), "x");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim_end("  x \u{3000}"), "  x");
    }

    #[test]
    fn control_filters_keep_what_qwen_keeps() {
        let text = "a\tb\nc\rd\x1b[0m\u{7f}\u{9b}\u{202e}e";
        assert_eq!(strip_output_controls(text), "a\tb\nc\rd[0m\u{7f}e");
        assert_eq!(strip_display_controls(text), "a\tbcd[0m\u{7f}e");
    }

    #[test]
    fn javascript_lengths_count_utf16_units() {
        assert_eq!(js_length("a😀"), 3);
        assert_eq!(js_prefix("a😀b", 2), "a");
        assert_eq!(js_prefix("a😀b", 3), "a😀");
        assert_eq!(js_prefix("ab", 9), "ab");
    }

    #[test]
    fn memory_is_formatted_as_qwen_formats_it() {
        assert_eq!(format_memory(0), "0.0 KB");
        assert_eq!(format_memory(1536), "1.5 KB");
        assert_eq!(format_memory(100_000_000), "95.4 MB");
        assert_eq!(format_memory(1024 * 1024 * 1024 - 1), "1.00 GB");
        assert_eq!(format_memory(3 * 1024 * 1024 * 1024), "3.00 GB");
    }
}
