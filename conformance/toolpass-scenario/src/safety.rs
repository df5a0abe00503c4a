//! What a scenario of the safety profile may judge. The profile holds every
//! tool layer to what it must guarantee whatever its design (confinement,
//! bytes kept, edits exact or refused, stale reads refused), so its
//! scenarios judge statuses, bytes on disk and whether given text reaches
//! the model, never how a design words or classifies its answer: another
//! design may refuse with another error code, show another diff or phrase
//! its message otherwise and still be safe.

use crate::expect::{Expect, RpcError};
use crate::located::Pos;
use crate::matcher::{Condition, Matcher};
use crate::scenario::Scenario;
use crate::step::StepKind;

/// Every expectation of `scenario` that depends on the design, each with the
/// position of its call and why it does not belong in the profile.
pub(crate) fn design_dependent(scenario: &Scenario) -> Vec<(Pos, String)> {
    let mut found = Vec::new();
    for step in &scenario.steps {
        let expects: Vec<(Pos, &Expect)> = match &step.kind {
            StepKind::Call(call) => call.expect.iter().map(|e| (call.tool.pos, e)).collect(),
            StepKind::Batch(batch) => batch
                .calls
                .iter()
                .filter_map(|c| c.expect.as_ref().map(|e| (c.tool.pos, e)))
                .collect(),
            StepKind::Confirm(confirm) => confirm.expect.iter().map(|e| (step.pos, e)).collect(),
            StepKind::Join(join) => join.expect.iter().map(|e| (step.pos, e)).collect(),
            StepKind::Cancel(cancel) => cancel.expect.iter().map(|e| (step.pos, e)).collect(),
            _ => Vec::new(),
        };
        for (pos, expect) in expects {
            judged(expect, pos, &mut found);
        }
    }
    found
}

fn judged(expect: &Expect, pos: Pos, found: &mut Vec<(Pos, String)>) {
    for alternative in &expect.any_of {
        judged(alternative, pos, found);
    }
    let keys = [
        ("error", expect.error.is_some(), "an error code"),
        ("display", expect.display.is_some(), "the display"),
        (
            "confirmation",
            expect.confirmation.is_some(),
            "the confirmation",
        ),
        (
            "result_file_paths",
            expect.result_file_paths.is_some(),
            "the result file paths",
        ),
        (
            "persisted_output",
            expect.persisted_output.is_some(),
            "whether output is spilled",
        ),
        (
            "rpc_error",
            matches!(expect.rpc_error, Some(RpcError::Code(_))),
            "a protocol error's code",
        ),
    ];
    for (key, present, what) in keys {
        if present {
            found.push((
                pos,
                format!(
                    "a safety scenario judges statuses and bytes, not {what} (`{key}`), \
                     which another sound design may give otherwise"
                ),
            ));
        }
    }
    if let Some(llm) = &expect.llm {
        wording(llm, pos, found);
    }
}

/// `llm` in the profile: only whether a text reaches the model (`contains`:
/// content the tool must show; `not_contains`: content that must not leak),
/// never its wording or shape.
fn wording(llm: &Matcher, pos: Pos, found: &mut Vec<(Pos, String)>) {
    let worded = llm
        .conditions()
        .iter()
        .any(|c| !matches!(c, Condition::Contains(_) | Condition::NotContains(_)));
    if worded {
        found.push((
            pos,
            "a safety scenario's `llm` uses only `contains` and `not_contains` (whether a \
             text reaches the model), not the wording or shape of the answer"
                .to_owned(),
        ));
    }
}
