//! The steps that look without changing anything: `expect_tools`,
//! `expect_files`, `wait_notice`, `wait_update`, `capture`, and the tool
//! list a scenario is skipped on.

use std::time::Duration;

use serde_json::Value;
use toolpass_protocol::method::{NOTICE, PROGRESS};
use toolpass_protocol::{
    NoticeParams, Notification, ProgressParams, RequestId, ToolsListParams, method,
};
use toolpass_scenario::{
    Capture, CaptureSource, ExpectFiles, ExpectTools, Scenario, WaitNotice, WaitUpdate,
};

use super::super::judge::check_json;
use super::super::verdict::{Failure, Verdict};
use super::{Abort, NOTICE_TIMEOUT, Player, StepOutcome};

impl Player<'_> {
    pub(super) async fn expect_tools(&mut self, expect: &ExpectTools) -> StepOutcome {
        let tools = self.list_tools().await?;
        let tools = match tools {
            Ok(tools) => tools,
            Err(failure) => return Ok(vec![failure]),
        };
        let name = |tool: &Value| tool.get("name").and_then(Value::as_str).map(str::to_owned);
        let names: Vec<String> = tools.iter().filter_map(name).collect();
        let mut failures = Vec::new();
        let listing = names.join("\n");
        for wanted in &expect.includes {
            if !names.contains(&wanted.value) {
                failures.push(Failure::new(
                    "tools",
                    format!(
                        "{} is not declared (declared: {})",
                        wanted.value,
                        names.join(", ")
                    ),
                ));
            }
        }
        for unwanted in &expect.excludes {
            if names.contains(&unwanted.value) {
                failures.push(Failure::new(
                    "tools",
                    format!("{} is declared, and should not be", unwanted.value),
                ));
            }
        }
        if let Some(exact) = &expect.exact {
            let mut expected: Vec<String> = exact.iter().map(|n| n.value.clone()).collect();
            expected.sort();
            let mut actual = names.clone();
            actual.sort();
            if expected != actual {
                failures.push(Failure::diff(
                    "tools",
                    "the declared tools are not exactly the expected ones",
                    expected.join("\n"),
                    actual.join("\n"),
                ));
            }
        }
        for (tool, subset) in &expect.schema {
            let declared = tools.iter().find(|t| name(t).as_deref() == Some(tool));
            match declared {
                None => failures.push(Failure::new(
                    format!("tools[{tool}]"),
                    format!("{tool} is not declared (declared: {listing})"),
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
    /// does not declare in this session: a tool layer that offers no
    /// `list_directory` (or only `edit`) cannot be judged on it. A list that
    /// cannot be read skips nothing; the steps will say what is wrong.
    pub(super) async fn undeclared(&mut self, scenario: &Scenario) -> Option<String> {
        let called = scenario.called_tools();
        if called.is_empty() {
            return None;
        }
        let declared = match self.list_tools().await {
            Ok(Ok(declared)) => declared,
            _ => return None,
        };
        let names: Vec<&str> = declared
            .iter()
            .filter_map(|d| d.get("name").and_then(Value::as_str))
            .collect();
        let missing: Vec<&str> = called.into_iter().filter(|t| !names.contains(t)).collect();
        (!missing.is_empty()).then(|| {
            super::super::skip::Skip::Undeclared(missing.into_iter().map(str::to_owned).collect())
                .to_string()
        })
    }

    /// Every declaration, following MCP's pagination cursor.
    pub(super) async fn list_tools(&mut self) -> Result<Result<Vec<Value>, Failure>, Abort> {
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
                _ => return Ok(Ok(tools)),
            }
        }
    }

    pub(super) fn expect_files(&self, expect: &ExpectFiles) -> StepOutcome {
        let mut failures: Vec<Failure> = expect
            .files
            .iter()
            .flat_map(|(rel, expected)| self.sandbox.check(rel, expected, self.context()))
            .collect();
        if expect.exact {
            let entries = self.sandbox.entries().map_err(|e| {
                Abort::Scenario(Failure::new(
                    "files",
                    format!("could not list the sandbox: {e}"),
                ))
            })?;
            let extra: Vec<&String> = entries
                .iter()
                .filter(|path| !expect.files.keys().any(|rel| rel.value == **path))
                .collect();
            if !extra.is_empty() {
                failures.push(Failure::new(
                    "files",
                    format!(
                        "exact: the sandbox also holds {}",
                        extra
                            .iter()
                            .map(|p| p.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        Ok(failures)
    }

    pub(super) async fn wait_notice(&mut self, wait: &WaitNotice) -> StepOutcome {
        let notice = |notification: &Notification| {
            (notification.method == NOTICE)
                .then(|| notification.params::<method::Notice>().ok())
                .flatten()
                .filter(|n: &NoticeParams| wait.kind.as_ref().is_none_or(|kind| *kind == n.kind))
                .map(|n| n.text)
        };
        match self
            .wait_matching("notice", "notice", &wait.matcher, wait.timeout_ms, notice)
            .await?
        {
            Ok(text) => {
                self.last_notice = Some(text);
                Ok(Vec::new())
            }
            Err(failure) => Ok(vec![failure]),
        }
    }

    pub(super) async fn wait_update(&mut self, wait: &WaitUpdate) -> StepOutcome {
        let token = wait
            .call_id
            .as_ref()
            .map(|id| RequestId::from(id.value.as_str()));
        let update = |notification: &Notification| {
            (notification.method == PROGRESS)
                .then(|| notification.params::<method::Progress>().ok())
                .flatten()
                .filter(|p: &ProgressParams| token.as_ref().is_none_or(|t| *t == p.progress_token))
                .map(|p| p.message.unwrap_or_default())
        };
        let of = wait
            .call_id
            .as_ref()
            .map_or(String::new(), |id| format!(" of call {}", id.value));
        let described = format!("update{of}");
        match self
            .wait_matching("update", &described, &wait.matcher, wait.timeout_ms, update)
            .await?
        {
            Ok(_) => Ok(Vec::new()),
            Err(failure) => Ok(vec![failure]),
        }
    }

    /// Waits, for `timeout_ms` or the runner's default, until a
    /// notification whose text (`text_of`; `None` for one that does not
    /// count) the matcher accepts has arrived, backlog included; its text,
    /// or the failure (checking `what`) naming the texts that did arrive.
    async fn wait_matching(
        &mut self,
        what: &str,
        described: &str,
        matcher: &toolpass_scenario::Matcher,
        timeout_ms: Option<u64>,
        text_of: impl Fn(&Notification) -> Option<String>,
    ) -> Result<Result<String, Failure>, Abort> {
        let matcher = matcher
            .substitute(&self.vars)
            .map_err(|e| Abort::Scenario(Failure::new(what, e.to_string())))?;
        let limit = timeout_ms.map_or(NOTICE_TIMEOUT, Duration::from_millis);
        let found = self
            .backlog
            .wait(self.connection, limit, |n| {
                text_of(n).is_some_and(|text| matcher.check(&text).is_ok())
            })
            .await;
        if let Some(text) = found.as_ref().and_then(&text_of) {
            return Ok(Ok(text));
        }
        let seen: Vec<String> = self.backlog.unread().filter_map(&text_of).collect();
        Ok(Err(Failure::diff(
            what,
            format!("no matching {described} arrived within {limit:?}"),
            format!("{matcher:?}"),
            seen.join("\n---\n"),
        )))
    }

    pub(super) fn capture(&mut self, capture: &Capture) -> StepOutcome {
        let source = match capture.from {
            CaptureSource::Llm => self.last.as_ref().map(|r| r.summary.llm_content.clone()),
            CaptureSource::ErrorMessage => self
                .last
                .as_ref()
                .and_then(|r| r.summary.error_message.clone()),
            CaptureSource::PersistedOutput => self
                .last
                .as_ref()
                .and_then(|r| r.persisted_output().map(str::to_owned)),
            CaptureSource::Notice => self.last_notice.clone(),
        };
        let Some(text) = source else {
            return Ok(vec![Failure::new(
                "capture",
                format!("there is no {:?} to capture from", capture.from),
            )]);
        };
        let mut failures = Vec::new();
        for (name, pattern) in &capture.vars {
            let pattern = pattern
                .substitute(&self.vars)
                .map_err(|e| Abort::Scenario(Failure::new("capture", e.to_string())))?;
            match pattern.capture(&text) {
                Some(value) => self.vars.set(name.value.clone(), value),
                None => failures.push(Failure::diff(
                    format!("capture[{}]", name.value),
                    "the regex does not match",
                    pattern.source().value.clone(),
                    text.clone(),
                )),
            }
        }
        Ok(failures)
    }
}
