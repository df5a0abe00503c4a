//! Holding scenarios to the clauses they cite: every `spec:` id is a
//! clause, the scenario's level follows the strongest clause it cites, a
//! step's own level only weakens it, and a `safety` scenario cites a
//! clause of the safety profile and judges nothing that depends on the
//! design (`safety.rs`).
//!
//! Separate from the loader's checks because it needs the specification:
//! the loader reads a scenario on its own, the runner then checks every
//! scenario against the built-in clauses and any `--spec` file's.

use std::path::PathBuf;

use crate::clauses::{Clause, Clauses};
use crate::level::Level;
use crate::load::{LoadError, LoadErrors};
use crate::located::Pos;
use crate::scenario::Scenario;
use crate::suggest;

/// A clause and the scenarios that cite it.
#[derive(Debug, Clone)]
pub struct Coverage<'a> {
    /// The clause.
    pub clause: &'a Clause,
    /// The scenarios citing it, in the order given.
    pub scenarios: Vec<&'a Scenario>,
}

impl Coverage<'_> {
    /// Whether a scored (not `pending`) scenario checks the clause.
    pub fn is_scored(&self) -> bool {
        self.scenarios
            .iter()
            .any(|s| s.level.value != Level::Pending)
    }
}

/// The tag of the safety profile's scenarios.
pub const SAFETY_TAG: &str = "safety";

impl Clauses {
    /// Every scenario checked; every problem of every one, as
    /// `path:line:column: message`.
    pub fn check_all<'a>(
        &self,
        scenarios: impl IntoIterator<Item = &'a Scenario>,
    ) -> Result<(), LoadErrors> {
        let errors: Vec<LoadError> = scenarios.into_iter().flat_map(|s| self.check(s)).collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(LoadErrors::sorted(errors))
        }
    }

    /// For each clause, in order, the scenarios of `scenarios` citing it:
    /// what `toolpass list --by-spec` shows, and what the suite's tests
    /// hold every MUST clause to.
    pub fn coverage<'a>(&'a self, scenarios: &'a [Scenario]) -> Vec<Coverage<'a>> {
        self.iter()
            .map(|clause| Coverage {
                clause,
                scenarios: scenarios
                    .iter()
                    .filter(|s| s.spec.iter().any(|id| id.as_str() == clause.id))
                    .collect(),
            })
            .collect()
    }

    /// Every way `scenario` does not follow the clauses it cites.
    pub fn check(&self, scenario: &Scenario) -> Vec<LoadError> {
        let path = scenario
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("{}.yaml", scenario.id)));
        let error = |pos: Pos, message: String| LoadError::new(&path, pos, message);
        let mut errors = Vec::new();
        let mut cited: Vec<&Clause> = Vec::new();
        for id in &scenario.spec {
            match self.get(id) {
                Some(clause) => cited.push(clause),
                None => {
                    let hint = suggest::did_you_mean(id, self.iter().map(|c| c.id.as_str()));
                    errors.push(error(
                        id.pos,
                        format!(
                            "unknown clause `{}`{hint}: spec cites the ids of clause \
                             headings in SPEC.md or a --spec file (`toolpass list --by-spec` \
                             lists them)",
                            id.as_str()
                        ),
                    ));
                }
            }
        }
        // The first cited position stands for the scenario's `spec` when a
        // problem has no key of its own to point at.
        let spec_pos = scenario.spec.first().map_or(Pos::UNKNOWN, |id| id.pos);
        // An unknown id already failed: what it would have said is unknown.
        let unknown = !errors.is_empty();
        let safety = scenario.tags.iter().any(|t| t == SAFETY_TAG);
        if safety {
            for (pos, message) in crate::safety::design_dependent(scenario) {
                errors.push(error(pos, message));
            }
        }
        if safety && !unknown && !cited.iter().any(|c| c.safety) {
            errors.push(error(
                spec_pos,
                "the scenario is tagged `safety` but cites no clause of the safety profile \
                 (a heading marked `· safety`): cite one, or drop the tag"
                    .into(),
            ));
        }
        // The strongest clause decides; an unknown id already failed, and
        // pending scenarios are not scored, so neither is judged here.
        let Some(strongest) = cited.iter().min_by_key(|c| c.strength) else {
            return errors;
        };
        if unknown || scenario.level.value == Level::Pending {
            return errors;
        }
        let level = strongest.strength.level();
        if scenario.level.value != level {
            let pos = if scenario.level.pos.is_known() {
                scenario.level.pos
            } else {
                spec_pos
            };
            let written = if scenario.level.pos.is_known() {
                format!("the level is `{}`", scenario.level.value.as_str())
            } else {
                "no level is given (so `required`)".to_owned()
            };
            errors.push(error(
                pos,
                format!(
                    "{written}, but the strongest clause cited, `{}`, is {}: the level is `{}`",
                    strongest.id,
                    strongest.strength,
                    level.as_str()
                ),
            ));
        }
        for step in &scenario.steps {
            if let Some(own) = &step.level
                && own.value < level
            {
                errors.push(error(
                    own.pos,
                    format!(
                        "a step's level may only weaken its scenario's: `{}` is stronger than \
                         `{}` (clause `{}` is {})",
                        own.value.as_str(),
                        level.as_str(),
                        strongest.id,
                        strongest.strength
                    ),
                ));
            }
        }
        errors
    }
}
