//! Invalid patterns, worded as Qwen words them.
//!
//! Qwen validates a pattern with JavaScript's `new RegExp(pattern)` and
//! reports `Invalid regular expression pattern: P. Error: Invalid regular
//! expression: /P/: REASON` with V8's reason. This reference searches with
//! Rust's `regex` dialect, so the checks are: V8's "Invalid group" for the
//! `(?...)` forms JavaScript does not know (inline flags such as `(?i)`,
//! `(?P<name>...)`), then the Rust parser, whose errors are mapped to V8's
//! reason where the two agree on the cause. A pattern JavaScript accepts but
//! Rust does not (look-around, back-references, a lone `{`) is refused with
//! the Rust parser's reason; Qwen would have run it.

use regex_syntax::ast;

/// A pattern that cannot be searched with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    message: String,
}

impl PatternError {
    fn new(pattern: &str, reason: &str) -> Self {
        PatternError {
            message: format!(
                "Invalid regular expression pattern: {pattern}. Error: Invalid regular expression: /{}/: {reason}",
                v8_source(pattern)
            ),
        }
    }

    /// Qwen's full message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PatternError {}

/// Refuses `(?` forms that V8 (Node 20, no `v` or `u` flag) reports as
/// "Invalid group": anything but `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` and a
/// named group `(?<name>`.
///
/// # Errors
/// The "Invalid group" [`PatternError`].
pub fn check_js_groups(pattern: &str) -> Result<(), PatternError> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let rest = chars.get(i + 2..).unwrap_or_default();
                if !js_group_opener(rest) {
                    return Err(PatternError::new(pattern, "Invalid group"));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn js_group_opener(rest: &[char]) -> bool {
    match rest {
        [':' | '=' | '!', ..] | ['<', '=' | '!', ..] => true,
        ['<', name @ ..] => {
            let len = name.iter().take_while(|&&c| c != '>').count();
            let ident = name.get(..len).unwrap_or_default();
            len < name.len()
                && ident
                    .first()
                    .is_some_and(|&c| c.is_alphabetic() || c == '_' || c == '$')
                && ident
                    .iter()
                    .all(|&c| c.is_alphanumeric() || c == '_' || c == '$')
        }
        _ => false,
    }
}

/// The error for a pattern `grep-regex` refused, with V8's reason where
/// there is one.
#[must_use]
pub fn from_rust(pattern: &str, error: &grep_regex::Error) -> PatternError {
    let reason = match regex_syntax::Parser::new().parse(pattern) {
        Err(regex_syntax::Error::Parse(e)) => {
            v8_reason(e.kind()).map_or_else(|| e.kind().to_string(), str::to_owned)
        }
        Err(regex_syntax::Error::Translate(e)) => e.kind().to_string(),
        // Parsed, so it failed later: too big, or a banned `\n`.
        _ => error.to_string(),
    };
    PatternError::new(pattern, &reason)
}

fn v8_reason(kind: &ast::ErrorKind) -> Option<&'static str> {
    use ast::ErrorKind as K;
    Some(match kind {
        K::GroupUnclosed => "Unterminated group",
        K::GroupUnopened => "Unmatched ')'",
        K::ClassUnclosed => "Unterminated character class",
        K::RepetitionMissing => "Nothing to repeat",
        K::EscapeUnexpectedEof => "\\ at end of pattern",
        K::ClassRangeInvalid => "Range out of order in character class",
        K::RepetitionCountInvalid => "numbers out of order in {} quantifier",
        K::GroupNameDuplicate { .. } => "Duplicate capture group name",
        K::GroupNameEmpty | K::GroupNameInvalid | K::GroupNameUnexpectedEof => {
            "Invalid capture group name"
        }
        K::FlagDanglingNegation
        | K::FlagDuplicate { .. }
        | K::FlagRepeatedNegation { .. }
        | K::FlagUnexpectedEof
        | K::FlagUnrecognized => "Invalid group",
        _ => return None,
    })
}

/// V8's `EscapeRegExpSource`: the pattern as it appears between the
/// slashes of its error message.
fn v8_source(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let (mut escaped, mut in_class) = (false, false);
    for c in pattern.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            '/' if !escaped && !in_class => out.push_str("\\/"),
            _ => out.push(c),
        }
        if !escaped {
            match c {
                '[' => in_class = true,
                ']' => in_class = false,
                _ => {}
            }
        }
        escaped = c == '\\' && !escaped;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(pattern: &str) -> String {
        if let Err(e) = check_js_groups(pattern) {
            return e.message;
        }
        let err = grep_regex::RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build(pattern)
            .unwrap_err();
        from_rust(pattern, &err).message
    }

    #[test]
    fn v8s_reasons_for_the_common_mistakes() {
        // Each expectation is what Qwen 0.24.4 returned for the pattern.
        for (pattern, reason) in [
            ("(", "/(/: Unterminated group"),
            ("abc)", "/abc)/: Unmatched ')'"),
            ("[a-", "/[a-/: Unterminated character class"),
            ("*abc", "/*abc/: Nothing to repeat"),
            ("\\", "/\\/: \\ at end of pattern"),
            ("(?i)HELLO", "/(?i)HELLO/: Invalid group"),
        ] {
            assert_eq!(
                refused(pattern),
                format!(
                    "Invalid regular expression pattern: {pattern}. Error: Invalid regular expression: {reason}"
                )
            );
        }
    }

    #[test]
    fn javascript_groups_pass_the_group_check() {
        for ok in [
            "(?:a)",
            "(?=a)",
            "(?!a)",
            "(?<=a)",
            "(?<!a)",
            "(?<name>a)",
            "[(?i)]",
            r"\(?i",
        ] {
            assert!(check_js_groups(ok).is_ok(), "{ok}");
        }
        for bad in ["(?i)", "(?P<n>a)", "(?<1>a)", "(?"] {
            assert!(check_js_groups(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slashes_are_escaped_in_the_source_like_v8() {
        assert_eq!(v8_source("a/b[/]\\/"), "a\\/b[/]\\/");
    }
}
