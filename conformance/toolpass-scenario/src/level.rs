//! How a scenario or a step is scored. Its own file because the scenario and
//! its steps both carry one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a scenario or a step is scored.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Every implementation must pass it.
    #[default]
    Required,
    /// Implementations should pass it; scored separately.
    Recommended,
    /// Nice to have; scored separately.
    Optional,
    /// Not scored: the reference cannot pass it yet. Needs a `reason`.
    /// Scenario-level only.
    Pending,
}

impl Level {
    /// The level as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Required => "required",
            Level::Recommended => "recommended",
            Level::Optional => "optional",
            Level::Pending => "pending",
        }
    }
}
