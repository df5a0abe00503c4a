//! The MCP client budget: how many servers a session may hold connected
//! (Qwen's `McpClientManager.tryReserveSlot`, read from
//! `QWEN_SERVE_MCP_CLIENT_BUDGET` and `QWEN_SERVE_MCP_BUDGET_MODE`).
//!
//! Off unless a budget is set. In `warn` mode every server connects and a
//! warning fires when the reserved slots reach 75% of the budget (re-armed
//! below 37.5%); in `enforce` mode a server past the budget is refused with
//! [`BudgetExhausted`]'s message. The caller reads the variables and
//! reports [`BudgetSettings::problems`]; this module only decides.

use std::collections::BTreeSet;

/// The variable holding the budget, a positive integer.
pub const BUDGET_VAR: &str = "QWEN_SERVE_MCP_CLIENT_BUDGET";
/// The variable holding the mode: `enforce`, `warn` or `off`.
pub const MODE_VAR: &str = "QWEN_SERVE_MCP_BUDGET_MODE";

/// Qwen's `MCP_BUDGET_WARN_FRACTION`, as a fraction of 8.
const WARN_EIGHTHS: usize = 6;
/// Qwen's `MCP_BUDGET_REARM_FRACTION` (0.375), as a fraction of 8.
const REARM_EIGHTHS: usize = 3;

/// What the budget does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetMode {
    /// Servers past the budget are refused.
    Enforce,
    /// Servers past the budget connect; a warning fires.
    Warn,
    /// No budget.
    Off,
}

/// The budget as the environment sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetSettings {
    /// The budget, when one is set.
    pub budget: Option<usize>,
    /// The mode.
    pub mode: BudgetMode,
    /// What was wrong with the variables, worded as Qwen writes it to
    /// stderr; each was ignored.
    pub problems: Vec<String>,
}

impl BudgetSettings {
    /// Qwen's `readBudgetFromEnv` over the two variables' values.
    #[must_use]
    pub fn from_vars(raw_budget: Option<&str>, raw_mode: Option<&str>) -> Self {
        let mut problems = Vec::new();
        let budget = match raw_budget.filter(|raw| !raw.is_empty()) {
            None => None,
            Some(raw) => {
                let trimmed = raw.trim();
                let parsed = trimmed
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| trimmed.parse::<usize>().ok())
                    .flatten()
                    // Number.isSafeInteger.
                    .filter(|&n| n > 0 && n < (1 << 53));
                if parsed.is_none() {
                    problems.push(format!(
                        "qwen serve: ignoring invalid {BUDGET_VAR}='{raw}' (expected positive \
                         integer); MCP budget enforcement disabled for this child."
                    ));
                }
                parsed
            }
        };
        let mut mode = match raw_mode {
            Some("enforce") => BudgetMode::Enforce,
            Some("warn") => BudgetMode::Warn,
            Some("off") => BudgetMode::Off,
            other => {
                let fallback = if budget.is_some() {
                    BudgetMode::Warn
                } else {
                    BudgetMode::Off
                };
                if let Some(raw) = other.filter(|raw| !raw.is_empty()) {
                    let name = if budget.is_some() { "warn" } else { "off" };
                    problems.push(format!(
                        "qwen serve: ignoring invalid {MODE_VAR}='{raw}' (expected \
                         enforce|warn|off); falling back to {name}."
                    ));
                }
                fallback
            }
        };
        if mode != BudgetMode::Off && budget.is_none() {
            let name = if mode == BudgetMode::Enforce {
                "enforce"
            } else {
                "warn"
            };
            problems.push(format!(
                "qwen serve: {MODE_VAR}={name} requires {BUDGET_VAR}=N; downgrading to off. Set \
                 both env vars to enable MCP guardrail enforcement."
            ));
            mode = BudgetMode::Off;
        }
        BudgetSettings {
            budget,
            mode,
            problems,
        }
    }
}

/// Qwen's `BudgetExhaustedError`: a server refused a slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExhausted {
    /// The server refused.
    pub server: String,
    /// The budget.
    pub budget: usize,
    /// Slots held when it was refused.
    pub reserved: usize,
}

impl std::fmt::Display for BudgetExhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MCP client budget exhausted: cannot reserve slot for '{}' (budget={}, \
             reservedCount={}). Raise --mcp-client-budget or remove servers from mcpServers \
             config.",
            self.server, self.budget, self.reserved
        )
    }
}

/// What [`Budget::reserve`] made of a request for a slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reservation {
    /// The slot is held (or there is no budget).
    Reserved {
        /// The warning crossed by this reservation, if any.
        warning: Option<String>,
    },
    /// The server held its slot already (a reconnect).
    AlreadyHeld,
    /// `enforce` and the budget is full.
    Refused(BudgetExhausted),
}

/// The slots of one session's servers.
#[derive(Debug, Clone)]
pub struct Budget {
    budget: Option<usize>,
    mode: BudgetMode,
    reserved: BTreeSet<String>,
    warn_armed: bool,
}

impl Budget {
    /// An empty budget under `settings`.
    #[must_use]
    pub fn new(settings: &BudgetSettings) -> Self {
        Budget {
            budget: settings.budget,
            mode: settings.mode,
            reserved: BTreeSet::new(),
            warn_armed: true,
        }
    }

    /// Qwen's `tryReserveSlot`.
    pub fn reserve(&mut self, server: &str) -> Reservation {
        if self.reserved.contains(server) {
            return Reservation::AlreadyHeld;
        }
        let Some(budget) = self.budget.filter(|_| self.mode != BudgetMode::Off) else {
            return Reservation::Reserved { warning: None };
        };
        if self.mode == BudgetMode::Enforce && self.reserved.len() >= budget {
            return Reservation::Refused(BudgetExhausted {
                server: server.to_owned(),
                budget,
                reserved: self.reserved.len(),
            });
        }
        self.reserved.insert(server.to_owned());
        Reservation::Reserved {
            warning: self.evaluate(budget),
        }
    }

    /// Qwen's `releaseSlotName`: returns whether the slot was held.
    pub fn release(&mut self, server: &str) -> bool {
        let had = self.reserved.remove(server);
        if had && let Some(budget) = self.budget.filter(|_| self.mode != BudgetMode::Off) {
            self.evaluate(budget);
        }
        had
    }

    /// Qwen's `evaluateBudgetState`: the warning, once per upward crossing
    /// of 75%, re-armed below 37.5%.
    fn evaluate(&mut self, budget: usize) -> Option<String> {
        let held = self.reserved.len();
        if self.warn_armed && held * 8 >= budget * WARN_EIGHTHS {
            self.warn_armed = false;
            return Some(format!(
                "MCP budget warning fired (ratio={:.2}, reservedCount={held}, budget={budget}, \
                 mode={})",
                held as f64 / budget as f64,
                if self.mode == BudgetMode::Enforce {
                    "enforce"
                } else {
                    "warn"
                }
            ));
        }
        if !self.warn_armed && held * 8 < budget * REARM_EIGHTHS {
            self.warn_armed = true;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_variables_mean_no_budget() {
        let settings = BudgetSettings::from_vars(None, None);
        assert_eq!(settings.mode, BudgetMode::Off);
        assert!(settings.problems.is_empty());
        let mut budget = Budget::new(&settings);
        for server in ["a", "b", "c"] {
            assert_eq!(
                budget.reserve(server),
                Reservation::Reserved { warning: None }
            );
        }
        // Off mode holds nothing, so a reconnect is a fresh reservation.
        assert_eq!(budget.reserve("a"), Reservation::Reserved { warning: None });
    }

    #[test]
    fn a_budget_alone_warns_and_an_enforced_one_refuses_past_it() {
        let warn = BudgetSettings::from_vars(Some(" 2 "), None);
        assert_eq!((warn.budget, warn.mode), (Some(2), BudgetMode::Warn));
        let mut budget = Budget::new(&warn);
        assert_eq!(budget.reserve("a"), Reservation::Reserved { warning: None });
        let Reservation::Reserved { warning: Some(w) } = budget.reserve("b") else {
            panic!("the second of two slots crosses 75%");
        };
        assert!(
            w.contains("ratio=1.00, reservedCount=2, budget=2, mode=warn"),
            "{w}"
        );
        assert!(matches!(
            budget.reserve("c"),
            Reservation::Reserved { warning: None }
        ));
        assert_eq!(budget.reserve("a"), Reservation::AlreadyHeld);

        let enforce = BudgetSettings::from_vars(Some("1"), Some("enforce"));
        let mut budget = Budget::new(&enforce);
        assert!(matches!(budget.reserve("a"), Reservation::Reserved { .. }));
        let Reservation::Refused(refusal) = budget.reserve("b") else {
            panic!("the budget of one is full");
        };
        assert_eq!(
            refusal.to_string(),
            "MCP client budget exhausted: cannot reserve slot for 'b' (budget=1, \
             reservedCount=1). Raise --mcp-client-budget or remove servers from mcpServers config."
        );
        assert!(budget.release("a"));
        assert!(!budget.release("a"));
        assert!(matches!(budget.reserve("b"), Reservation::Reserved { .. }));
    }

    #[test]
    fn the_warning_fires_once_per_crossing_and_rearms_below_three_eighths() {
        let settings = BudgetSettings::from_vars(Some("4"), Some("warn"));
        let mut budget = Budget::new(&settings);
        let fired = |r: Reservation| matches!(r, Reservation::Reserved { warning: Some(_) });
        assert!(!fired(budget.reserve("a")));
        assert!(!fired(budget.reserve("b")));
        assert!(fired(budget.reserve("c")));
        assert!(!fired(budget.reserve("d")));
        budget.release("d");
        budget.release("c");
        assert!(
            !fired(budget.reserve("c")),
            "2/4 is not below 37.5%: still disarmed"
        );
        budget.release("c");
        budget.release("b");
        assert!(!fired(budget.reserve("b")));
        assert!(fired(budget.reserve("c")));
    }

    #[test]
    fn bad_values_are_ignored_and_said_so() {
        for raw in ["0", "-1", "1.5", "x", "99999999999999999999"] {
            let settings = BudgetSettings::from_vars(Some(raw), None);
            assert_eq!(
                (settings.budget, settings.mode),
                (None, BudgetMode::Off),
                "{raw}"
            );
            assert!(
                settings.problems[0].contains(&format!("{BUDGET_VAR}='{raw}'")),
                "{raw}"
            );
        }
        let settings = BudgetSettings::from_vars(Some("3"), Some("strict"));
        assert_eq!(settings.mode, BudgetMode::Warn);
        assert!(settings.problems[0].ends_with("falling back to warn."));
        let settings = BudgetSettings::from_vars(None, Some("enforce"));
        assert_eq!(settings.mode, BudgetMode::Off);
        assert!(settings.problems[0].contains("requires QWEN_SERVE_MCP_CLIENT_BUDGET=N"));
        // An empty variable is an unset one.
        assert!(
            BudgetSettings::from_vars(Some(""), Some(""))
                .problems
                .is_empty()
        );
    }
}
