//! The steps that look without changing anything: `expect_files`,
//! `wait_notice`, `wait_update` and `capture` (`expect_tools` is in
//! [`super::tools`]).

use std::time::Duration;

use toolpass_protocol::method::{NOTICE, PROGRESS};
use toolpass_protocol::{NoticeParams, Notification, ProgressParams, RequestId, method};
use toolpass_scenario::{Capture, CaptureSource, ExpectFiles, WaitNotice, WaitUpdate};

use super::super::verdict::Failure;
use super::{Abort, NOTICE_TIMEOUT, Player, StepOutcome};

impl Player<'_> {
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
