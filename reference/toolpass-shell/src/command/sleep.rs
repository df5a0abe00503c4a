//! Qwen Code's guard against a foreground command that starts by sleeping
//! (`detectBlockedSleepPatternDetails` and the refusal built from it in
//! `ShellTool.validateToolParamValues`, `tools/shell.ts`): `sleep N` with
//! N ≥ 2 s, alone or followed by `;`, `&&`, `||` or a line break, keeps the
//! agent waiting for nothing; the model is pointed at `is_background`.

use super::scan::comment_start;

/// The comment that lets a standalone sleep through (`# intentional-sleep:
/// <reason>`).
const INTENTIONAL_SLEEP_PREFIX: &str = "intentional-sleep:";
/// The longest intentional sleep, in seconds (10 minutes).
const MAX_INTENTIONAL_SLEEP_SECONDS: f64 = 600.0;
/// The shortest reason an intentional sleep must give, in UTF-16 units.
const MIN_INTENTIONAL_SLEEP_REASON: usize = 8;

/// Qwen's refusal of a foreground `command` that starts with a sleep of two
/// seconds or more; `None` when it may run.
#[must_use]
pub fn blocked_sleep(command: &str) -> Option<String> {
    let (code, comment) = split_comment(command);
    let trimmed = js_trim(&code);
    let after = trimmed.strip_prefix("sleep")?;
    if !after.starts_with(is_js_space) {
        return None;
    }
    let duration_start = after.len() - after.trim_start_matches(is_js_space).len();
    let from_duration = &after[duration_start..];
    let duration_len = from_duration
        .find(|c: char| is_js_space(c) || matches!(c, ';' | '&' | '|' | '\n'))
        .unwrap_or(from_duration.len());
    let duration = &from_duration[..duration_len];
    let seconds = sleep_seconds(duration)?;
    if seconds < 2.0 {
        return None;
    }
    let rest = following_command(&from_duration[duration_len..])?;
    let rest = js_trim(rest);
    let standalone = rest.is_empty();
    let description = if standalone {
        format!("standalone sleep {duration}")
    } else {
        format!("sleep {duration} followed by: {rest}")
    };
    let intentional = comment
        .as_deref()
        .map(js_trim)
        .filter(|c| standalone && c.starts_with(INTENTIONAL_SLEEP_PREFIX));
    let guidance = match intentional {
        Some(comment) => {
            let reason = js_trim(&comment[INTENTIONAL_SLEEP_PREFIX.len()..]);
            if reason.encode_utf16().count() < MIN_INTENTIONAL_SLEEP_REASON {
                "The intentional-sleep comment was recognized, but the reason is too short; \
                 explain why the delay is needed after `intentional-sleep:`."
            } else if seconds > MAX_INTENTIONAL_SLEEP_SECONDS {
                "The intentional-sleep comment was recognized, but foreground sleeps over 10 \
                 minutes are not allowed; use is_background: true or Monitor for longer waits."
            } else {
                return None;
            }
        }
        None if standalone => {
            "If you genuinely need a standalone delay (rate limiting, deliberate pacing), add a \
             trailing comment like `# intentional-sleep: wait for MCP rate limit reset` (up to \
             10 minutes)."
        }
        None => {
            "Split into two calls: first `sleep N # intentional-sleep: <reason>` (standalone), \
             then the follow-up command."
        }
    };
    Some(format!(
        "Blocked: {description}. Run blocking commands in the background with is_background: \
         true. For streaming events (watching logs, polling APIs), use the Monitor tool. \
         {guidance}"
    ))
}

/// The command without its comment (the lines after the comment kept), and
/// the comment's text up to its line's end.
fn split_comment(command: &str) -> (String, Option<String>) {
    let Some(at) = comment_start(command) else {
        return (command.to_owned(), None);
    };
    let after = &command[at + 1..];
    match after.find('\n') {
        Some(newline) => (
            format!("{}{}", &command[..at], &after[newline..]),
            Some(after[..newline].to_owned()),
        ),
        None => (command[..at].to_owned(), Some(after.to_owned())),
    }
}

/// Qwen's `getSleepSequentialSeparator`: what follows the sleep when it is
/// nothing or a command after `&&`, `||`, `;` or a line break; `None` for
/// anything else (`sleep 5 | x`, `sleep 5 &`).
fn following_command(suffix: &str) -> Option<&str> {
    let rest = suffix.trim_start_matches(|c: char| c != '\n' && is_js_space(c));
    if rest.is_empty() {
        return Some("");
    }
    if let Some(after) = rest.strip_prefix("&&").or_else(|| rest.strip_prefix("||")) {
        return Some(after);
    }
    rest.strip_prefix([';', '\n'])
}

/// Qwen's `parseSleepDurationToSeconds`: a decimal number and an optional
/// unit (`ms`, `s`, `m`, `h`, `d`).
fn sleep_seconds(token: &str) -> Option<f64> {
    let mut seen_dot = false;
    let number_len = token
        .char_indices()
        .find(|&(_, c)| {
            if c == '.' && !seen_dot {
                seen_dot = true;
                return false;
            }
            !c.is_ascii_digit()
        })
        .map_or(token.len(), |(at, _)| at);
    let number = &token[..number_len];
    if !number.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    // `parseFloat` of digits with at most one dot: "5.", ".5" and "5" parse.
    let value: f64 = match number {
        n if n.ends_with('.') => n[..n.len() - 1].parse().ok()?,
        n if n.starts_with('.') => format!("0{n}").parse().ok()?,
        n => n.parse().ok()?,
    };
    let factor = match token[number_len..].to_ascii_lowercase().as_str() {
        "ms" => 0.001,
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    Some(value * factor)
}

/// JavaScript's `\s`.
fn is_js_space(c: char) -> bool {
    crate::output::text::is_js_whitespace(c)
}

/// `text.trim()`.
fn js_trim(text: &str) -> &str {
    crate::output::text::js_trim(text)
}
