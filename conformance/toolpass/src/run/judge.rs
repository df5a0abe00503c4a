//! Judging one Outcome against a call's `expect`: pure functions of the
//! reply and the scenario's variables, returning every expectation that
//! did not hold.

use std::cell::Cell;

use serde_json::Value;
use toolpass_protocol::{ErrorCode, OutcomeSummary, Status};
use toolpass_scenario::{
    Condition, Expect, Json, Matcher, Mismatch, Vars, json_exact, json_subset,
};

use super::any_of::any_of;
use super::verdict::Failure;

/// A reply to `tools/call` or `toolpass/confirm`, as judged.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    /// The result as sent.
    pub(crate) value: Value,
    /// What the runner reads of it.
    pub(crate) summary: OutcomeSummary,
}

impl Reply {
    fn meta(&self, member: &str) -> Option<&Value> {
        self.value.pointer(&format!("/_meta/toolpass/{member}"))
    }

    /// `_meta.toolpass.persistedOutputPath`.
    pub(crate) fn persisted_output(&self) -> Option<&str> {
        self.meta("persistedOutputPath").and_then(Value::as_str)
    }
}

/// What judging needs besides the texts: the variables to substitute, and
/// in bless mode the count of snapshots rewritten.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    pub(crate) vars: &'a Vars,
    /// `Some` in bless mode: a snapshot that differs is rewritten (and
    /// counted) instead of failing.
    pub(crate) blessed: Option<&'a Cell<usize>>,
}

/// The failure of a request answered with a result where `wanted` (a
/// JSON-RPC error's code, `any`, or several joined) was due.
pub(crate) fn error_was_due(wanted: &dyn std::fmt::Display) -> String {
    format!("answered with a result where a JSON-RPC error ({wanted}) was due")
}

/// Every expectation of `expect` that `reply` does not meet.
///
/// An expectation naming a variable that was never captured is a failure
/// of the scenario rather than the implementation: it comes back as `Err`.
pub(crate) fn judge(
    expect: &Expect,
    reply: &Reply,
    context: Context<'_>,
) -> Result<Vec<Failure>, Failure> {
    if !expect.any_of.is_empty() {
        let alternatives = expect
            .any_of
            .iter()
            .map(|alternative| judge(alternative, reply, context))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(any_of("expect", alternatives));
    }
    if let Some(error) = expect.rpc_error {
        // An alternative of `any_of` that wants an error, met by a result.
        return Ok(vec![Failure::new("rpc_error", error_was_due(&error))]);
    }
    let vars = context.vars;
    let mut failures = Vec::new();
    let summary = &reply.summary;
    if let Some(status) = expect.status
        && status != summary.status
    {
        // One word each: the message says it all, a diff would add noise.
        failures.push(Failure::new(
            "status",
            format!(
                "expected status {}, got {}{}",
                status_name(status),
                status_name(summary.status),
                error_note(summary)
            ),
        ));
    }
    failures.extend(check_code(expect, summary));
    if let Some(matcher) = &expect.llm {
        failures.extend(check_text("llm", matcher, &summary.llm_content, context)?);
    }
    for (what, expected, member) in [
        ("display", &expect.display, "display"),
        ("confirmation", &expect.confirmation, "confirmation"),
    ] {
        if let Some(expected) = expected {
            failures.extend(check_json(what, expected, reply.meta(member), vars)?);
        }
    }
    if let Some(expected) = &expect.classifier_input {
        failures.extend(check_json_with(
            json_exact,
            "classifier_input",
            expected,
            reply.meta("classifierInput"),
            vars,
        )?);
    }
    if let Some(matchers) = &expect.result_file_paths {
        failures.extend(check_paths(
            matchers,
            reply.meta("resultFilePaths"),
            context,
        )?);
    }
    if let Some(wanted) = expect.persisted_output {
        let present = reply.persisted_output().is_some();
        if wanted != present {
            failures.push(Failure::new(
                "persisted_output",
                if wanted {
                    "expected the output to be persisted to a file, but there is no persistedOutputPath"
                } else {
                    "expected no persisted output, but persistedOutputPath is set"
                },
            ));
        }
    }
    Ok(failures)
}

/// The error code: the one `expect` names, and in any case a canonical
/// one. A code outside the vocabulary fails the step even when the step
/// names none, because no scenario can judge it and the schema forbids it.
fn check_code(expect: &Expect, summary: &OutcomeSummary) -> Option<Failure> {
    let actual = summary.error_code.as_deref();
    let refusal = actual
        .filter(|code| ErrorCode::parse(code).is_none())
        .map(ErrorCode::refusal);
    let Some(expected) = &expect.error else {
        return refusal.map(|refusal| Failure::new("error", refusal));
    };
    let message = match actual {
        Some(actual) if actual == expected.value => return None,
        Some(actual) => format!(
            "expected error code {}, got {actual}{}{}",
            expected.value,
            summary
                .error_message
                .as_deref()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default(),
            refusal.map(|r| format!("; {r}")).unwrap_or_default()
        ),
        None => format!(
            "expected error code {}, got none{}",
            expected.value,
            if summary.toolpass {
                ""
            } else {
                PLAIN_MCP_CODE_NOTE
            }
        ),
    };
    Some(Failure::new("error", message))
}

/// Said when a plain MCP reply has no code: one can carry a code, by adding
/// `_meta.toolpass` to its result, as IMPLEMENTING.md shows.
const PLAIN_MCP_CODE_NOTE: &str = " (a plain MCP reply carries a code only when its result adds \
     `_meta.toolpass.error.code`, with `status` and `llmContent`: see IMPLEMENTING.md)";

/// A text matcher, substituted and checked; in bless mode its snapshots
/// are rewritten to `actual` and only its other conditions checked.
pub(crate) fn check_text(
    what: &str,
    matcher: &Matcher,
    actual: &str,
    context: Context<'_>,
) -> Result<Option<Failure>, Failure> {
    let matcher = matcher
        .substitute(context.vars)
        .map_err(|e| Failure::new(what, e.to_string()))?;
    let Some(blessed) = context.blessed else {
        return Ok(matcher.check(actual).err().map(|m| mismatch(what, &m)));
    };
    let written = matcher
        .bless(actual)
        .map_err(|e| Failure::new(what, format!("could not write the snapshot: {e}")))?;
    blessed.set(blessed.get() + written);
    Ok(matcher
        .conditions()
        .iter()
        .filter(|c| !matches!(c, Condition::Snapshot(_)))
        .try_for_each(|c| c.check(actual))
        .err()
        .map(|m| mismatch(what, &m)))
}

/// A JSON subset, substituted and checked against a member that may be
/// absent.
pub(crate) fn check_json(
    what: &str,
    expected: &Json,
    actual: Option<&Value>,
    vars: &Vars,
) -> Result<Option<Failure>, Failure> {
    check_json_with(json_subset, what, expected, actual, vars)
}

/// A JSON value, substituted and compared by `compare` (a subset, or the
/// whole value) against a member that may be absent.
fn check_json_with(
    compare: fn(&Value, &Value) -> Result<(), Mismatch>,
    what: &str,
    expected: &Json,
    actual: Option<&Value>,
    vars: &Vars,
) -> Result<Option<Failure>, Failure> {
    let expected = expected
        .substitute(vars)
        .map_err(|e| Failure::new(what, e.to_string()))?;
    let actual = actual.unwrap_or(&Value::Null);
    Ok(compare(&expected, actual).err().map(|m| mismatch(what, &m)))
}

fn check_paths(
    matchers: &[Matcher],
    actual: Option<&Value>,
    context: Context<'_>,
) -> Result<Vec<Failure>, Failure> {
    let paths: Vec<&str> = actual
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if paths.len() != matchers.len() {
        return Ok(vec![Failure::diff(
            "result_file_paths",
            format!(
                "expected {}, got {}",
                crate::plural::counted(matchers.len(), "result file path", "result file paths"),
                paths.len()
            ),
            matchers.len().to_string(),
            paths.join("\n"),
        )]);
    }
    let mut failures = Vec::new();
    for (i, (matcher, path)) in matchers.iter().zip(paths).enumerate() {
        failures.extend(check_text(
            &format!("result_file_paths[{i}]"),
            matcher,
            path,
            context,
        )?);
    }
    Ok(failures)
}

/// A matcher's mismatch as a failure of `what`.
pub(crate) fn mismatch(what: &str, mismatch: &Mismatch) -> Failure {
    if mismatch.is_diffable() {
        Failure::diff(
            what,
            mismatch.message(),
            mismatch.expected(),
            mismatch.actual(),
        )
    } else {
        Failure::with_actual(what, mismatch.to_string(), mismatch.actual())
    }
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Success => "success",
        Status::Error => "error",
        Status::AwaitingConfirmation => "awaiting_confirmation",
        Status::Cancelled => "cancelled",
    }
}

/// `(error_code: message)` after an unexpected status, because that is
/// the first thing a reader wants to know.
fn error_note(summary: &OutcomeSummary) -> String {
    match (&summary.error_code, &summary.error_message) {
        (Some(code), Some(message)) => format!(" ({code}: {message})"),
        (Some(code), None) => format!(" ({code})"),
        (None, Some(message)) => format!(" ({message})"),
        (None, None) if summary.status == Status::Error => {
            format!(" ({})", first_line(&summary.llm_content))
        }
        (None, None) => String::new(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolpass_scenario::{Located, Pos};

    use super::*;

    fn reply(value: Value) -> Reply {
        let summary = OutcomeSummary::from_value(&value).unwrap();
        Reply { value, summary }
    }

    fn failures(expect: &Expect, value: Value) -> Vec<String> {
        let vars = Vars::new("/sandbox");
        let context = Context {
            vars: &vars,
            blessed: None,
        };
        judge(expect, &reply(value), context)
            .unwrap()
            .iter()
            .map(Failure::headline)
            .collect()
    }

    fn expecting(code: &str) -> Expect {
        Expect {
            error: Some(Located::new(code.to_owned(), Pos::UNKNOWN)),
            ..Expect::default()
        }
    }

    fn toolpass_error(code: &str) -> Value {
        json!({
            "content": [{"type": "text", "text": "no"}],
            "isError": true,
            "_meta": {"toolpass": {"status": "error", "llmContent": "no",
                                   "error": {"code": code, "message": "peer text"}}}
        })
    }

    #[test]
    fn an_alternative_wanting_a_json_rpc_error_is_not_met_by_a_result() {
        use toolpass_scenario::RpcError;
        let wants_error = |error| Expect {
            rpc_error: Some(error),
            ..Expect::default()
        };
        let cancelled = Expect {
            status: Some(Status::Cancelled),
            ..Expect::default()
        };
        let either = Expect {
            any_of: vec![wants_error(RpcError::Any), cancelled],
            ..Expect::default()
        };
        assert_eq!(
            failures(&either, toolpass_error("edit_no_occurrence_found")),
            [
                "expect: none of the 2 alternatives of `any_of` holds",
                "any_of[1] rpc_error: answered with a result where a JSON-RPC error (any) was due",
                "any_of[2] status: expected status cancelled, got error (edit_no_occurrence_found: peer text)",
            ]
        );
        assert_eq!(
            failures(&wants_error(RpcError::Code(-32602)), toolpass_error("x")),
            ["rpc_error: answered with a result where a JSON-RPC error (-32602) was due"]
        );
    }

    #[test]
    fn a_needle_failure_carries_the_text_it_was_checked_against() {
        use toolpass_scenario::Condition;
        let vars = Vars::new("/sandbox");
        let context = Context {
            vars: &vars,
            blessed: None,
        };
        let needle = Matcher::new(vec![Condition::Contains(Located::unknown("x".into()))]);
        let failure = check_text("llm", &needle, "a\nb", context)
            .unwrap()
            .unwrap();
        assert_eq!(failure.headline(), "llm: contains: does not contain \"x\"");
        assert_eq!(
            (failure.expected, failure.actual.as_deref()),
            (None, Some("a\nb"))
        );
        // A whole text is a diff: both sides.
        let whole = Matcher::equals("a\nc");
        let failure = check_text("llm", &whole, "a\nb", context).unwrap().unwrap();
        assert_eq!(failure.expected.as_deref(), Some("a\nc"));
        assert_eq!(failure.actual.as_deref(), Some("a\nb"));
    }

    #[test]
    fn a_plain_mcp_reply_without_a_code_is_told_how_to_carry_one() {
        let plain = json!({"content": [{"type": "text", "text": "no"}], "isError": true});
        assert_eq!(
            failures(&expecting("file_not_found"), plain),
            [
                "error: expected error code file_not_found, got none (a plain MCP reply carries a \
              code only when its result adds `_meta.toolpass.error.code`, with `status` and \
              `llmContent`: see IMPLEMENTING.md)"
            ]
        );
    }

    #[test]
    fn a_plain_mcp_reply_with_meta_toolpass_is_judged_on_its_code() {
        let mut value = toolpass_error("file_not_found");
        assert!(failures(&expecting("file_not_found"), value.clone()).is_empty());
        value["_meta"]["toolpass"]["error"]["code"] = json!("permission_denied");
        assert_eq!(
            failures(&expecting("file_not_found"), value),
            ["error: expected error code file_not_found, got permission_denied (peer text)"]
        );
    }

    #[test]
    fn a_code_outside_the_vocabulary_fails_naming_it_and_the_list() {
        let bogus = toolpass_error("patch_rejected");
        // Even a step that names no code: the wire allows none other.
        let [unnamed] = &failures(&Expect::default(), bogus.clone())[..] else {
            panic!("one failure expected");
        };
        assert!(
            unnamed.starts_with("error: \"patch_rejected\" is not a canonical error code;"),
            "{unnamed}"
        );
        assert!(unnamed.contains("edit_requires_prior_read"), "{unnamed}");
        let [named] = &failures(&expecting("file_not_found"), bogus)[..] else {
            panic!("one failure expected");
        };
        assert!(
            named.starts_with(
                "error: expected error code file_not_found, got patch_rejected (peer text); \
                 \"patch_rejected\" is not a canonical error code;"
            ),
            "{named}"
        );
    }
}
