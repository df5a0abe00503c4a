//! What `tools/list` shows: the `expect_tools` step, and the tools a
//! scenario is skipped on when the implementation has none of that name.
//!
//! A list is the declarations plus, under `_meta.toolpass`, the deferred
//! tools the model knows by name only and the reminder that names them
//! (IMPLEMENTING.md's `deferred_tools`). A deferred tool is no missing
//! tool: it is reached through `tool_search`, so a scenario calling one is
//! played, not skipped.

use serde_json::Value;
use toolpass_protocol::{ToolsListParams, method};
use toolpass_scenario::{ExpectTools, Located, Scenario};

use super::super::judge::{check_json, check_text};
use super::super::verdict::{Failure, Verdict};
use super::{Abort, Player, StepOutcome};

/// One `tools/list`, every page of it.
pub(super) struct Listing {
    /// The declarations, in the order given.
    tools: Vec<Value>,
    /// `_meta.toolpass.deferredTools` of the last page; empty when absent.
    deferred: Vec<String>,
    /// `_meta.toolpass.deferredReminder` of the last page.
    reminder: Option<String>,
}

impl Listing {
    fn names(&self) -> Vec<String> {
        let name = |tool: &Value| tool.get("name").and_then(Value::as_str).map(str::to_owned);
        self.tools.iter().filter_map(name).collect()
    }
}

/// `includes`, `excludes` and `exact` of one list of names; `exact` judges
/// the order too, which is the model's.
struct NameChecks<'a> {
    what: &'a str,
    includes: &'a [Located<String>],
    excludes: &'a [Located<String>],
    exact: Option<&'a [Located<String>]>,
}

impl<'a> NameChecks<'a> {
    fn of(what: &'a str, expect: &'a ExpectTools) -> Self {
        NameChecks {
            what,
            includes: &expect.includes,
            excludes: &expect.excludes,
            exact: expect.exact.as_deref(),
        }
    }

    fn check(&self, names: &[String]) -> Vec<Failure> {
        let what = self.what;
        let mut failures = Vec::new();
        for wanted in self.includes {
            if !names.contains(&wanted.value) {
                let message = format!(
                    "{} is not {what} ({what}: {})",
                    wanted.value,
                    names.join(", ")
                );
                failures.push(Failure::new("tools", message));
            }
        }
        for unwanted in self.excludes {
            if names.contains(&unwanted.value) {
                let message = format!("{} is {what}, and should not be", unwanted.value);
                failures.push(Failure::new("tools", message));
            }
        }
        if let Some(exact) = self.exact {
            let expected: Vec<String> = exact.iter().map(|n| n.value.clone()).collect();
            if expected != names {
                failures.push(Failure::diff(
                    "tools",
                    format!("the {what} tools are not exactly the expected ones, in this order"),
                    expected.join("\n"),
                    names.join("\n"),
                ));
            }
        }
        failures
    }
}

impl Player<'_> {
    pub(super) async fn expect_tools(&mut self, expect: &ExpectTools) -> StepOutcome {
        let listing = match self.list_tools().await? {
            Ok(listing) => listing,
            Err(failure) => return Ok(vec![failure]),
        };
        let names = listing.names();
        let mut failures = NameChecks::of("declared", expect).check(&names);
        if let Some(deferred) = &expect.deferred {
            let checks = NameChecks::of("deferred", deferred);
            failures.extend(checks.check(&listing.deferred));
        }
        if let Some(reminder) = &expect.reminder {
            let actual = listing.reminder.as_deref().unwrap_or_default();
            let failure = check_text("tools.reminder", reminder, actual, self.context())
                .map_err(Abort::Scenario)?;
            failures.extend(failure);
        }
        for (tool, subset) in &expect.schema {
            let declared = listing
                .tools
                .iter()
                .find(|t| t.get("name").and_then(Value::as_str) == Some(tool));
            match declared {
                None => failures.push(Failure::new(
                    format!("tools[{tool}]"),
                    format!("{tool} is not declared (declared: {})", names.join("\n")),
                )),
                Some(declared) => failures.extend(
                    check_json(
                        &format!("tools[{tool}]"),
                        subset,
                        Some(declared),
                        &self.vars,
                    )
                    .map_err(Abort::Scenario)?,
                ),
            }
        }
        Ok(failures)
    }

    /// Why the scenario is skipped, if it calls a tool the implementation
    /// neither declares nor lists as deferred in this session: a tool layer
    /// that offers no `list_directory` (or only `edit`) cannot be judged on
    /// it. A list that cannot be read skips nothing; the steps will say
    /// what is wrong.
    pub(super) async fn undeclared(&mut self, scenario: &Scenario) -> Option<String> {
        let called = scenario.called_tools();
        if called.is_empty() {
            return None;
        }
        let listing = match self.list_tools().await {
            Ok(Ok(listing)) => listing,
            _ => return None,
        };
        let names = listing.names();
        let known = |tool: &&str| names.iter().chain(&listing.deferred).any(|n| n == tool);
        let missing: Vec<&str> = called.into_iter().filter(|t| !known(t)).collect();
        (!missing.is_empty()).then(|| {
            super::super::skip::Skip::Undeclared(missing.into_iter().map(str::to_owned).collect())
                .to_string()
        })
    }

    /// Every declaration, following MCP's pagination cursor, and what the
    /// last page says of the deferred tools.
    pub(super) async fn list_tools(&mut self) -> Result<Result<Listing, Failure>, Abort> {
        let mut tools = Vec::new();
        let mut cursor = None;
        loop {
            let params = ToolsListParams {
                session_id: self.session.clone(),
                cursor: cursor.take(),
            };
            let page = match self.send::<method::ToolsList>(&params, "tools").await? {
                Ok(page) => page,
                Err(failure) => return Ok(Err(failure)),
            };
            let Some(listed) = page.get("tools").and_then(Value::as_array) else {
                let error = self
                    .connection
                    .reject(
                        method::TOOLS_LIST,
                        "the result has no tools array",
                        Some(page.to_string()),
                    )
                    .await;
                return Err(Abort::Connection(Verdict::ProtocolError, Box::new(error)));
            };
            tools.extend(listed.iter().cloned());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if tools.len() < 10_000 => cursor = Some(next.to_owned()),
                _ => return Ok(Ok(deferred_of(&page, tools))),
            }
        }
    }
}

/// The listing of `tools` with what `page`'s `_meta.toolpass` says of the
/// deferred tools. Members of another shape are taken as absent: a plain
/// MCP server may use `_meta` for its own ends.
fn deferred_of(page: &Value, tools: Vec<Value>) -> Listing {
    let extra = page.pointer("/_meta/toolpass");
    let deferred = extra
        .and_then(|e| e.get("deferredTools"))
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let reminder = extra
        .and_then(|e| e.get("deferredReminder"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Listing {
        tools,
        deferred,
        reminder,
    }
}
