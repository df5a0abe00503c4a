//! The scenario model: [`Scenario`], its [`Level`], and
//! [`Expect`], what a call step expects of an Outcome.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolpass_protocol::{Feature, SessionConfig};

use crate::expect::Expect;
use crate::files::{FileEntry, RelPath};
use crate::forms::OneOrMany;
use crate::level::Level;
use crate::located::Located;
use crate::step::{Step, StepKind};

/// One scenario: a sandbox, steps to replay in it, and what to expect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "toolpass scenario")]
pub struct Scenario {
    /// The id: the file's path under the scenario directory, without
    /// `.yaml` (`edit/fuzzy/curly-quotes`). Set by the loader.
    #[serde(skip)]
    pub id: String,
    /// The file it was loaded from; snapshots live next to it.
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// What the scenario shows, in one line.
    pub title: Located<String>,
    /// The clauses of SPEC.md it checks: one id (`edit.fuzzy.fold`) or a
    /// list of them, each a clause heading's id. `toolpass validate`
    /// refuses an id that is not one.
    #[serde(deserialize_with = "at_least_one_clause")]
    #[schemars(with = "OneOrMany<String>")]
    pub spec: Vec<Located<String>>,
    /// How its result is scored.
    #[serde(default)]
    pub level: Located<Level>,
    /// Why the scenario has its level; required with `pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Free labels for `--tag` (e.g. `edit`, `beyond-qwen`, a report's id).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Features the implementation must advertise, or the scenario is
    /// skipped. Steps imply more (`batch`, `confirm`, `notices`,
    /// `fault:<point>`): see `Scenario::features`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub requires: Vec<Located<Feature>>,
    /// Session config overrides, sent as is in `toolpass/session.open`
    /// (the protocol's camelCase keys: `truncateToolOutputThreshold`, ...).
    #[serde(default, skip_serializing_if = "is_default")]
    pub config: SessionConfig,
    /// The sandbox before step 1: path → content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<RelPath, FileEntry>,
    /// The steps, in order.
    #[schemars(length(min = 1))]
    #[serde(deserialize_with = "at_least_one_step")]
    pub steps: Vec<Located<Step>>,
}

/// Refuses `steps: []` while reading, where the parser knows the list's
/// position: the validator sees only the empty vector, with none.
fn at_least_one_step<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Located<Step>>, D::Error> {
    let steps = Vec::<Located<Step>>::deserialize(deserializer)?;
    if steps.is_empty() {
        return Err(serde::de::Error::custom(
            "a scenario needs at least one step",
        ));
    }
    Ok(steps)
}

/// `spec: []` is refused while reading, where its position is known.
fn at_least_one_clause<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Located<String>>, D::Error> {
    let ids = crate::files::one_or_many(deserializer)?;
    if ids.is_empty() {
        return Err(serde::de::Error::custom(
            "spec names no clause: give the id of the clause the scenario checks",
        ));
    }
    Ok(ids)
}

/// Whether `expect` (or one of its alternatives) judges `classifierInput`.
fn judges_classifier_input(expect: Option<&Expect>) -> bool {
    expect.is_some_and(|expect| {
        expect.classifier_input.is_some()
            || expect
                .any_of
                .iter()
                .any(|alternative| judges_classifier_input(Some(alternative)))
    })
}

fn is_default(config: &SessionConfig) -> bool {
    *config == SessionConfig::default()
}

impl Scenario {
    /// The tools the scenario calls and expects the implementation to
    /// declare: every `call` and `batch` tool, except those it says must
    /// not be declared (`expect_tools: excludes`) or disables in its
    /// config. A deferred tool is among them: the runner finds it among
    /// the deferred tools `tools/list` names (`_meta.toolpass.deferredTools`)
    /// when it is not declared.
    pub fn called_tools(&self) -> BTreeSet<&str> {
        let mut excluded: BTreeSet<&str> = self
            .config
            .disabled_tools
            .iter()
            .map(String::as_str)
            .collect();
        let mut called = BTreeSet::new();
        for step in &self.steps {
            match &step.kind {
                StepKind::Call(call) => {
                    called.insert(call.tool.as_str());
                }
                StepKind::Batch(batch) => {
                    called.extend(batch.calls.iter().map(|c| c.tool.as_str()));
                }
                StepKind::ExpectTools(expect) => {
                    excluded.extend(expect.excludes.iter().map(|t| t.as_str()));
                }
                _ => {}
            }
        }
        called.retain(|tool| !excluded.contains(tool));
        called
    }

    /// The features the scenario needs: those it `requires` and those its
    /// steps imply (`batch`, `confirm`, `notices`, `cancel`, `updates`,
    /// `fault:<point>`, `classifier_input` for an `expect` judging it, and
    /// `sessions` for a config or any of those).
    pub fn features(&self) -> BTreeSet<Feature> {
        let mut features: BTreeSet<Feature> =
            self.requires.iter().map(|f| f.value.clone()).collect();
        for step in &self.steps {
            match &step.kind {
                StepKind::Call(call) if judges_classifier_input(call.expect.as_ref()) => {
                    features.insert(Feature::ClassifierInput)
                }
                StepKind::Batch(_) => features.insert(Feature::Batch),
                StepKind::Confirm(confirm) => {
                    if judges_classifier_input(confirm.expect.as_ref()) {
                        features.insert(Feature::ClassifierInput);
                    }
                    features.insert(Feature::Confirm)
                }
                StepKind::ExpectTools(expect) if expect.judges_deferred() => {
                    features.insert(Feature::DeferredTools)
                }
                StepKind::WaitNotice(_) => features.insert(Feature::Notices),
                StepKind::Cancel(_) => features.insert(Feature::Cancel),
                StepKind::WaitUpdate(_) => features.insert(Feature::Updates),
                StepKind::CloseSession => features.insert(Feature::Sessions),
                StepKind::Fault(fault) => {
                    features.insert(Feature::Fault(fault.point.value.clone()))
                }
                _ => false,
            };
        }
        if !features.is_empty() || !is_default(&self.config) {
            features.insert(Feature::Sessions);
        }
        features
    }

    /// The clause ids it cites, as one line (`a.b, c.d`): what reports
    /// carry, so a report stays one string per scenario as it always was.
    pub fn spec_text(&self) -> String {
        self.spec
            .iter()
            .map(|id| id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The level a step is scored at: its own, or the scenario's.
    pub fn step_level(&self, step: &Step) -> Level {
        step.level.as_ref().map_or(self.level.value, |l| l.value)
    }
}
