//! Running scenarios against an implementation: a pool of workers, each
//! with one long-lived process (or one per scenario with `isolate`), a
//! fresh sandbox per scenario, every step judged.
//!
//! A process that crashes, hangs or breaks the protocol costs the scenario
//! it was playing (marked `crash`, `timeout` or `protocol_error` with its
//! stderr tail); the worker restarts it and the run goes on.

mod any_of;
mod beneath;
mod interrupt;
mod judge;
mod leftovers;
mod play;
mod sandbox;
pub mod skip;
mod verdict;
mod waits;

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use toolpass_protocol::{Dialect, Feature};
use toolpass_scenario::Scenario;

pub use interrupt::{Interrupt, Interrupter};
pub use verdict::{
    CallTiming, Failure, Observed, SandboxFile, ScenarioResult, StepResult, Verdict,
};

use crate::{Connection, StartError, Supervisor};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Workers, each with its own implementation process.
    pub jobs: usize,
    /// One process per scenario instead of one per worker.
    pub isolate: bool,
    /// Leave each sandbox in place (its path is the result's
    /// `kept_sandbox`).
    pub keep: bool,
    /// How long one request may take.
    pub timeout: Duration,
    /// How many times each scenario runs.
    pub repeat: u32,
    /// Rewrite snapshots that differ instead of failing on them.
    pub bless: bool,
    /// Keep what the sandbox holds after each scenario
    /// ([`ScenarioResult::sandbox_after`], for `toolpass record`).
    pub record: bool,
    /// Stops the run early: the scenarios playing end as `error`, their
    /// implementations killed and sandboxes removed, and no other starts.
    pub interrupt: Interrupt,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            jobs: 1,
            isolate: false,
            keep: false,
            timeout: Duration::from_secs(30),
            repeat: 1,
            bless: false,
            record: false,
            interrupt: Interrupt::default(),
        }
    }
}

/// What a run reports as it goes, for a progress bar.
#[derive(Debug, Clone)]
pub enum Event {
    /// A scenario started.
    Started {
        /// Its id.
        id: String,
    },
    /// A scenario finished.
    Finished(Box<ScenarioResult>),
}

/// Runs every scenario (`repeat` times) and returns the results sorted by
/// id and repetition. `on_event` sees each scenario start and finish.
pub async fn run(
    supervisor: &Supervisor,
    scenarios: &[Scenario],
    config: &RunConfig,
    on_event: impl Fn(Event) + Send + Sync,
) -> Vec<ScenarioResult> {
    let queue: VecDeque<(usize, u32)> = (1..=config.repeat.max(1))
        .flat_map(|rep| (0..scenarios.len()).map(move |i| (i, rep)))
        .collect();
    let queue = Mutex::new(queue);
    let results = Mutex::new(Vec::with_capacity(scenarios.len()));
    let workers = (0..config.jobs.max(1)).map(|_| async {
        let mut worker = Worker::new(supervisor, config);
        while !config.interrupt.is_set() {
            let next = queue.lock().map(|mut q| q.pop_front()).ok().flatten();
            let Some((index, repetition)) = next else {
                break;
            };
            let Some(scenario) = scenarios.get(index) else {
                break;
            };
            on_event(Event::Started {
                id: scenario.id.clone(),
            });
            let result = worker.run(scenario, repetition).await;
            on_event(Event::Finished(Box::new(result.clone())));
            if let Ok(mut results) = results.lock() {
                results.push(result);
            }
        }
        worker.shutdown().await;
    });
    futures_join_all(workers).await;
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by(|a, b| (&a.id, a.repetition).cmp(&(&b.id, b.repetition)));
    results
}

/// Drives the workers together on this task. They borrow the scenarios, so
/// they are not spawned; they spend their time waiting on the processes,
/// so one task is enough.
async fn futures_join_all<F: std::future::Future<Output = ()>>(futures: impl Iterator<Item = F>) {
    let mut pending: Vec<_> = futures.map(Box::pin).collect();
    std::future::poll_fn(|cx| {
        pending.retain_mut(|f| f.as_mut().poll(cx).is_pending());
        if pending.is_empty() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

/// Runs scenarios one after another on one implementation, keeping its
/// connection between them when the scenarios allow.
pub(crate) struct Worker<'a> {
    supervisor: &'a Supervisor,
    config: &'a RunConfig,
    connection: Option<Connection>,
}

impl<'a> Worker<'a> {
    /// A worker with no connection yet.
    pub(crate) fn new(supervisor: &'a Supervisor, config: &'a RunConfig) -> Worker<'a> {
        Worker {
            supervisor,
            config,
            connection: None,
        }
    }

    /// Runs `scenario` (its `repetition`-th time), judged.
    pub(crate) async fn run(&mut self, scenario: &Scenario, repetition: u32) -> ScenarioResult {
        let started = Instant::now();
        let mut result = ScenarioResult {
            id: scenario.id.clone(),
            path: scenario.path.clone(),
            title: scenario.title.value.clone(),
            spec: scenario.spec_text(),
            level: scenario.level.value,
            tags: scenario.tags.clone(),
            verdict: Verdict::Pass,
            reason: None,
            steps: Vec::new(),
            repetition,
            duration: Duration::ZERO,
            blessed: 0,
            observed: Vec::new(),
            sandbox_after: None,
            kept_sandbox: None,
        };
        let sandbox = match sandbox::Sandbox::new() {
            Ok(sandbox) => sandbox,
            Err(e) => {
                result.verdict = Verdict::Error;
                result.reason = Some(format!("could not create a sandbox: {e}"));
                return result;
            }
        };
        let interrupt = self.config.interrupt.clone();
        let finished = tokio::select! {
            () = self.play(scenario, &sandbox, &mut result) => true,
            () = interrupt.wait() => false,
        };
        if !finished {
            // The implementation goes before its sandbox does, so nothing
            // writes into the directory while it is being removed.
            if let Some(connection) = self.connection.take() {
                connection.kill().await;
            }
            result.verdict = Verdict::Error;
            result.reason = Some("interrupted: the run was stopped".to_owned());
        }
        if self.config.record {
            let root = sandbox.root().to_string_lossy();
            result.sandbox_after = sandbox.contents().ok().map(|contents| {
                contents
                    .into_iter()
                    .map(|(path, file)| (path, file.into_template(&root)))
                    .collect()
            });
        }
        result.write_root_as_placeholder(&sandbox.root().to_string_lossy());
        if self.config.isolate || result.verdict.is_abort() {
            self.shutdown().await;
        }
        if self.config.keep {
            result.kept_sandbox = Some(sandbox.keep());
        }
        result.duration = started.elapsed();
        result
    }

    /// Plays `scenario` in `sandbox` on the worker's connection, into
    /// `result`.
    async fn play(
        &mut self,
        scenario: &Scenario,
        sandbox: &sandbox::Sandbox,
        result: &mut ScenarioResult,
    ) {
        let config = self.config;
        match self.connection_for(sandbox).await {
            Err(e) => {
                result.verdict = Verdict::Error;
                result.reason = Some(start_reason(&e));
            }
            Ok(connection) => match missing_features(connection, scenario) {
                Some(reason) => {
                    result.verdict = Verdict::Skip;
                    result.reason = Some(reason);
                }
                None => {
                    let played = play::play(connection, scenario, sandbox, config).await;
                    result.verdict = match &played.stopped {
                        Some(stopped) => stopped.verdict,
                        None if played.steps.iter().any(|s| s.verdict != Verdict::Pass) => {
                            Verdict::Fail
                        }
                        None => Verdict::Pass,
                    };
                    result.reason = played.stopped.map(|s| s.reason);
                    result.steps = played.steps;
                    result.blessed = played.blessed;
                    result.observed = played.observed;
                }
            },
        }
    }

    /// The worker's live connection, started (or restarted) as needed. An
    /// implementation that takes `{root}` on its command line gets a
    /// process per scenario, since its root is fixed at start.
    async fn connection_for(
        &mut self,
        sandbox: &sandbox::Sandbox,
    ) -> Result<&mut Connection, StartError> {
        let per_scenario = self.config.isolate || self.supervisor.implementation().needs_root();
        let reuse = !per_scenario && self.connection.as_ref().is_some_and(Connection::is_alive);
        if !reuse {
            self.shutdown().await;
            let root = per_scenario.then(|| sandbox.root());
            self.connection = Some(self.supervisor.connect(root).await?);
        }
        self.connection
            .as_mut()
            .ok_or_else(|| StartError::new(crate::StartErrorKind::Spawn, "no connection"))
    }

    /// Closes the connection, if one is open.
    pub(crate) async fn shutdown(&mut self) {
        if let Some(connection) = self.connection.take() {
            connection.close().await;
        }
    }
}

/// Why the implementation cannot run the scenario, if it cannot: a feature
/// it does not advertise, or any feature at all for a plain MCP server.
fn missing_features(connection: &Connection, scenario: &Scenario) -> Option<String> {
    let needed = scenario.features();
    let peer = connection.peer();
    if matches!(peer.dialect(), Dialect::PlainMcp(_)) {
        return (!needed.is_empty())
            .then(|| skip::Skip::PlainMcp(names(needed.iter())).to_string());
    }
    let missing: Vec<&Feature> = needed.iter().filter(|f| !peer.supports(f)).collect();
    (!missing.is_empty()).then(|| skip::Skip::Unadvertised(names(missing.into_iter())).to_string())
}

fn names<'a>(features: impl Iterator<Item = &'a Feature>) -> Vec<String> {
    features.map(ToString::to_string).collect()
}

fn start_reason(error: &StartError) -> String {
    format!("could not start the implementation: {}", error.details())
}
