//! Line endings: which style a file uses, the LF view edits are matched
//! against, and the CRLF restoration on write-back (Qwen's
//! `fileSystemService.ts:detectLineEnding` and `ensureCrlfLineEndings`, and
//! the `/\r\n/g` replace in `edit.ts:calculateEdit`).

use std::borrow::Cow;

use memchr::memmem;

/// The line-ending style of a file, as Qwen records it in `_meta.lineEnding`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `\n`; also the style of content with no line break at all.
    #[default]
    Lf,
    /// `\r\n`; the style of content with at least one `\r\n`.
    Crlf,
}

impl LineEnding {
    /// Qwen's name for the style: `"lf"` or `"crlf"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            LineEnding::Lf => "lf",
            LineEnding::Crlf => "crlf",
        }
    }

    /// The line break itself.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::Crlf => "\r\n",
        }
    }

    /// Puts this style back on `content` before it is encoded, as Qwen's
    /// `prepareTextFileContent` does: CRLF content goes through
    /// [`ensure_crlf`], LF content is written as it is (Qwen never converts
    /// CRLF to LF on write).
    #[must_use]
    pub fn restore(self, content: &str) -> Cow<'_, str> {
        match self {
            LineEnding::Lf => Cow::Borrowed(content),
            LineEnding::Crlf => Cow::Owned(ensure_crlf(content)),
        }
    }
}

/// [`LineEnding::Crlf`] if `content` contains at least one `"\r\n"`, else
/// [`LineEnding::Lf`], even when CRLF is a minority in mixed content.
#[must_use]
pub fn detect_line_ending(content: &str) -> LineEnding {
    if memmem::find(content.as_bytes(), b"\r\n").is_some() {
        LineEnding::Crlf
    } else {
        LineEnding::Lf
    }
}

/// Turns every `"\n"` that is not already part of a `"\r\n"` into `"\r\n"`.
///
/// Qwen writes this as `split('\r\n').join('\n').split('\n').join('\r\n')`;
/// the result is the same, without the two intermediate strings. Existing
/// `"\r\n"` pairs are not doubled and a lone `"\r"` is left alone.
#[must_use]
pub fn ensure_crlf(content: &str) -> String {
    let line_feeds = memchr::memchr_iter(b'\n', content.as_bytes()).count();
    let mut out = String::with_capacity(content.len() + line_feeds);
    let mut rest = content;
    while let Some(at) = rest.find('\n') {
        // `at` is the index of an ASCII byte, so both splits fall on char
        // boundaries; `split_at_checked` keeps that a checked fact.
        let Some((line, tail)) = rest.split_at_checked(at) else {
            break;
        };
        out.push_str(line);
        if !line.ends_with('\r') {
            out.push('\r');
        }
        out.push('\n');
        rest = tail.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// The content with every `"\r\n"` replaced by `"\n"`, borrowed when there is
/// none. A lone `"\r"` is left alone, as Qwen's `replace(/\r\n/g, '\n')` does.
#[must_use]
pub fn normalize_to_lf(content: &str) -> Cow<'_, str> {
    if memmem::find(content.as_bytes(), b"\r\n").is_none() {
        return Cow::Borrowed(content);
    }
    Cow::Owned(content.replace("\r\n", "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Qwen's own implementation, transcribed, as the model to compare with.
    fn qwen_ensure_crlf(content: &str) -> String {
        content
            .split("\r\n")
            .collect::<Vec<_>>()
            .join("\n")
            .split('\n')
            .collect::<Vec<_>>()
            .join("\r\n")
    }

    fn check_crlf(input: &str, expect: &str) {
        assert_eq!(ensure_crlf(input), expect, "{input:?}");
        assert_eq!(
            qwen_ensure_crlf(input),
            expect,
            "model disagrees on {input:?}"
        );
    }

    // upstream: fileSystemService.test.ts "should detect CRLF line endings"
    #[test]
    fn detects_crlf() {
        assert_eq!(detect_line_ending("line1\r\nline2\r\n"), LineEnding::Crlf);
    }

    // upstream: fileSystemService.test.ts "should detect LF line endings"
    #[test]
    fn detects_lf() {
        assert_eq!(detect_line_ending("line1\nline2\n"), LineEnding::Lf);
    }

    // upstream: fileSystemService.test.ts "should return lf for content with no line endings"
    #[test]
    fn no_line_endings_is_lf() {
        assert_eq!(detect_line_ending("single line"), LineEnding::Lf);
    }

    // upstream: fileSystemService.test.ts "should return lf for empty content"
    #[test]
    fn empty_is_lf() {
        assert_eq!(detect_line_ending(""), LineEnding::Lf);
    }

    // upstream: fileSystemService.test.ts "should detect CRLF even in mixed content"
    #[test]
    fn mixed_with_one_crlf_is_crlf() {
        assert_eq!(
            detect_line_ending("line1\r\nline2\nline3"),
            LineEnding::Crlf
        );
    }

    #[test]
    fn lone_cr_is_lf() {
        assert_eq!(detect_line_ending("old\rmac\r"), LineEnding::Lf);
    }

    // upstream: fileSystemService.test.ts "should convert LF to CRLF"
    #[test]
    fn converts_lf_to_crlf() {
        check_crlf("line1\nline2\n", "line1\r\nline2\r\n");
    }

    // upstream: fileSystemService.test.ts "should not double-convert existing CRLF"
    #[test]
    fn does_not_double_convert_crlf() {
        check_crlf("line1\r\nline2\r\n", "line1\r\nline2\r\n");
    }

    // upstream: fileSystemService.test.ts "should handle mixed line endings"
    #[test]
    fn converts_mixed_endings() {
        check_crlf("line1\r\nline2\nline3\r\n", "line1\r\nline2\r\nline3\r\n");
    }

    // upstream: fileSystemService.test.ts "should handle content with no line endings"
    #[test]
    fn no_line_endings_unchanged() {
        check_crlf("single line", "single line");
    }

    // upstream: fileSystemService.test.ts "should convert LF to CRLF when writing .bat files on Windows"
    #[test]
    fn converts_bat_script() {
        check_crlf(
            "@echo off\necho hello\nexit /b 0\n",
            "@echo off\r\necho hello\r\nexit /b 0\r\n",
        );
    }

    #[test]
    fn lone_cr_and_edges_match_qwen() {
        for input in [
            "",
            "\n",
            "\r",
            "\r\n",
            "\r\r\n",
            "\n\n",
            "\n\r",
            "a\rb\nc",
            "\r\n\n\r",
            "é\n😀\r\n",
        ] {
            assert_eq!(ensure_crlf(input), qwen_ensure_crlf(input), "{input:?}");
        }
    }

    #[test]
    fn normalize_borrows_without_crlf() {
        assert!(matches!(
            normalize_to_lf("a\nb\rc"),
            Cow::Borrowed("a\nb\rc")
        ));
    }

    #[test]
    fn normalize_keeps_lone_cr() {
        assert_eq!(normalize_to_lf("a\r\nb\rc\r\r\n"), "a\nb\rc\r\n");
    }

    #[test]
    fn restore_round_trips_a_crlf_file() {
        let file = "one\r\ntwo\r\n";
        let style = detect_line_ending(file);
        assert_eq!(style.restore(&normalize_to_lf(file)), file);
        assert_eq!(LineEnding::Lf.restore("a\r\nb\n"), "a\r\nb\n");
    }

    proptest::proptest! {
        #[test]
        fn ensure_crlf_matches_qwen(s in "[a\r\n]{0,24}|\\PC{0,24}") {
            proptest::prop_assert_eq!(ensure_crlf(&s), qwen_ensure_crlf(&s));
        }

        #[test]
        fn normalize_matches_replace(s in "[a\r\n]{0,24}") {
            proptest::prop_assert_eq!(normalize_to_lf(&s), s.replace("\r\n", "\n"));
        }
    }
}
