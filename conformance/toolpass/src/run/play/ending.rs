//! The steps that end things and judge what is left: `close_session`,
//! `kill_server` and `expect_no_processes`.

use std::time::{Duration, Instant};

use toolpass_protocol::{SessionCloseParams, method};
use toolpass_scenario::ExpectNoProcesses;

use super::super::leftovers::{self, Exempt, Roots};
use super::super::verdict::Failure;
use super::{Abort, Player, StepOutcome, abort_verdict};

/// How long an `expect_no_processes` waits for processes to end when the
/// step does not say: longer than any layer's grace period between its
/// polite signal and its kill.
const PROCESSES_TIMEOUT: Duration = Duration::from_secs(10);

impl Player<'_> {
    /// Closes the session; a refusal is the step's failure.
    pub(super) async fn close_session(&mut self) -> StepOutcome {
        let session_id = self.session()?;
        self.session = None;
        self.forget_calls();
        let params = SessionCloseParams { session_id };
        match self
            .connection
            .request::<method::SessionClose>(&params, self.timeout)
            .await
        {
            Ok(_) => Ok(Vec::new()),
            Err(e) => match abort_verdict(&e) {
                Some(verdict) => Err(Abort::Connection(verdict, Box::new(e))),
                None => Ok(vec![Failure::new(
                    "close_session",
                    format!("toolpass/session.close was refused: {e}"),
                )]),
            },
        }
    }

    /// Kills the implementation's process group and leaves the rest for
    /// `expect_no_processes`.
    pub(super) async fn kill_server(&mut self) -> StepOutcome {
        self.session = None;
        self.forget_calls();
        self.connection.kill_keeping_leftovers().await;
        Ok(Vec::new())
    }

    /// No process of the scenario is alive within the step's time; any
    /// that is is named, then killed, so a failure leaves nothing running.
    pub(super) async fn expect_no_processes(&mut self, expect: &ExpectNoProcesses) -> StepOutcome {
        if !leftovers::CAN_JUDGE {
            return Err(Abort::Scenario(Failure::new(
                "expect_no_processes",
                "this runner tells a scenario's processes through Linux's /proc; run it on Linux",
            )));
        }
        let limit = expect
            .timeout_ms
            .map_or(PROCESSES_TIMEOUT, Duration::from_millis);
        let exempt = Exempt {
            implementation: self.connection.is_alive().then(|| self.connection.pid()),
        };
        let roots = Roots::of(self.sandbox.root());
        let started = Instant::now();
        let (survivors, roots) = tokio::task::spawn_blocking(move || {
            (leftovers::wait_for_none(&roots, exempt, limit), roots)
        })
        .await
        .map_err(|e| {
            Abort::Scenario(Failure::new(
                "expect_no_processes",
                format!("reading /proc failed: {e}"),
            ))
        })?;
        if survivors.is_empty() {
            return Ok(Vec::new());
        }
        let message = leftovers::describe(&survivors, started.elapsed());
        let _ =
            tokio::task::spawn_blocking(move || leftovers::end(&survivors, &roots, exempt)).await;
        Ok(vec![Failure::new("expect_no_processes", message)])
    }

    /// Calls in flight or awaiting an answer end with their session or
    /// server: no later step may wait for them.
    fn forget_calls(&mut self) {
        self.running.clear();
        self.awaiting.clear();
    }
}
