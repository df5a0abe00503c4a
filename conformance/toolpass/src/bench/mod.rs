//! `toolpass bench`: the scenarios' calls timed through the protocol, for
//! one or several implementations in one run.
//!
//! Every round runs the selected scenarios once against each
//! implementation, interleaved: scenario by scenario, each implementation
//! in turn on its own long-lived connection, in an order that rotates from
//! scenario to scenario and round to round (so no implementation always
//! runs first, on a cold cache, or last, and a load that comes and goes
//! weighs on both calls of a pair); the warm-up rounds are discarded. A call's time is its
//! `tools/call` round trip, request written to answer read, judging
//! excluded. Start-up is spawn to `initialize` answered, measured the same
//! interleaved way.
//!
//! Per tool: p50 and p99 of each implementation's calls, and its ratio to
//! the first implementation over the calls both made and both passed (the
//! same scenario step), so a peer that skips scenarios is compared on what
//! it ran, and one that fails a step at once (a wrong answer is quick) is
//! not ranked faster for it. A
//! tool whose round medians spread more than [`BenchConfig::spread_limit`]
//! is flagged: the figures of a noisy machine are not to be trusted.

pub mod baseline;
pub mod compare;
mod paired;
pub mod render;
pub mod render_compare;
mod stats;

#[cfg(test)]
mod compare_tests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde::Serialize;
use toolpass_scenario::Scenario;

use crate::run::{Interrupt, RunConfig, ScenarioResult, Worker};
use crate::{StartError, Supervisor};

pub use paired::{MIN_PAIRS_PER_ROUND, PairedRatio, RatioRange};
pub use stats::{Stats, percentile};

use paired::paired_ratio;

/// How to bench.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Rounds whose times count.
    pub rounds: u32,
    /// Rounds run first and discarded.
    pub warmup: u32,
    /// Start-ups timed per implementation (after `warmup` discarded ones).
    pub startups: u32,
    /// How long one request may take.
    pub timeout: Duration,
    /// The largest spread of a tool's round medians, `(max - min) / median`,
    /// before it is flagged as unstable.
    pub spread_limit: f64,
    /// Stops the bench early (the command line's SIGINT or SIGTERM).
    pub interrupt: Interrupt,
}

impl Default for BenchConfig {
    fn default() -> BenchConfig {
        BenchConfig {
            rounds: 5,
            warmup: 1,
            startups: 10,
            timeout: Duration::from_secs(30),
            spread_limit: 0.25,
            interrupt: Interrupt::default(),
        }
    }
}

/// What a bench found.
#[derive(Debug, Clone, Serialize)]
pub struct Bench {
    /// Rounds that counted, after `warmup` discarded ones.
    pub rounds: u32,
    /// Rounds discarded.
    pub warmup: u32,
    /// The implementations, in the order given; ratios are to the first.
    pub implementations: Vec<Timed>,
    /// One row per tool called, sorted by name, then `all tools`.
    pub tools: Vec<ToolRow>,
    /// Figures not to be trusted, one line each.
    pub warnings: Vec<String>,
}

/// One implementation.
#[derive(Debug, Clone, Serialize)]
pub struct Timed {
    /// Its `serverInfo.name`.
    pub name: String,
    /// Its `serverInfo.version`.
    pub version: String,
    /// Its command line.
    pub command: String,
    /// Spawn to `initialize` answered.
    pub startup: Stats,
    /// Its start-up p50 over the first implementation's.
    pub startup_ratio: f64,
}

/// One tool across the implementations.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRow {
    /// The tool, or `all tools`.
    pub tool: String,
    /// One cell per implementation; `None` where it made no such call.
    pub cells: Vec<Option<ToolCell>>,
}

/// One tool's calls in one implementation.
#[derive(Debug, Clone, Serialize)]
pub struct ToolCell {
    /// Its calls' times.
    pub stats: Stats,
    /// p50 over the first implementation's p50, on the calls both made;
    /// `None` when they made none in common.
    pub ratio: Option<f64>,
    /// The gate's ratio: the median over this tool's calls of each call's
    /// time over the first implementation's time for the same scenario
    /// step in the same round, both passed. Pairing call with call keeps
    /// a mix of fast and slow tools (the `all tools` row) from moving the
    /// figure when the median slips from one kind of call to the other.
    /// `None` when they passed no step in common.
    pub paired: Option<PairedRatio>,
}

/// The name of the row over every call.
pub const ALL_TOOLS: &str = "all tools";

/// One call: which scenario step, which tool, how long, and whether its
/// step passed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample {
    pub(crate) key: (String, usize),
    pub(crate) tool: String,
    pub(crate) round: u32,
    pub(crate) elapsed: Duration,
    pub(crate) passed: bool,
}

/// How far a bench has got, for a progress display.
#[derive(Debug, Clone, Copy)]
pub enum BenchEvent {
    /// A start-up was timed: `done` of `total`.
    Startup {
        /// Start-ups timed so far, warm-up ones included.
        done: usize,
        /// Start-ups to time in all.
        total: usize,
    },
    /// A round begins.
    Round {
        /// The round, from 1, warm-up rounds first.
        round: u32,
        /// Rounds in all, warm-up ones included.
        rounds: u32,
        /// Whether its times are discarded.
        warmup: bool,
    },
    /// One implementation ran one scenario of the round.
    Scenario {
        /// Which: its index among the supervisors benched.
        implementation: usize,
    },
    /// The round ended.
    RoundDone {
        /// Its wall time, every implementation's scenarios together.
        elapsed: Duration,
        /// Scenarios each implementation ran.
        scenarios: usize,
        /// How many implementations ran them.
        implementations: usize,
    },
}

/// Runs the bench: start-ups, then the rounds, telling `on_event` how far
/// it has got.
pub async fn bench(
    supervisors: &[Supervisor],
    scenarios: &[Scenario],
    config: &BenchConfig,
    on_event: impl Fn(BenchEvent) + Sync,
) -> Result<Bench, StartError> {
    let scratch = tempfile::tempdir().map_err(|e| {
        StartError::new(
            crate::StartErrorKind::Spawn,
            format!("create a scratch root: {e}"),
        )
    })?;
    let mut infos = vec![None; supervisors.len()];
    let mut startups = vec![Vec::new(); supervisors.len()];
    let startup_rounds = config.warmup + config.startups.max(1);
    let mut started_up = 0;
    // The first start-ups of each (cold caches, a first JIT) are warm-up too.
    for n in 0..startup_rounds {
        for i in rotation(supervisors.len(), n) {
            if config.interrupt.is_set() {
                break;
            }
            let started = Instant::now();
            let connection = supervisors[i].connect(Some(scratch.path())).await?;
            if n >= config.warmup {
                startups[i].push(started.elapsed());
            }
            if infos[i].is_none() {
                infos[i] = Some(connection.peer().server_info().clone());
            }
            connection.close().await;
            started_up += 1;
            on_event(BenchEvent::Startup {
                done: started_up,
                total: startup_rounds as usize * supervisors.len(),
            });
        }
    }
    let run = RunConfig {
        jobs: 1,
        isolate: false,
        keep: false,
        timeout: config.timeout,
        repeat: 1,
        bless: false,
        record: false,
        interrupt: config.interrupt.clone(),
    };
    let mut samples = vec![Vec::new(); supervisors.len()];
    let mut workers: Vec<Worker<'_>> = supervisors.iter().map(|s| Worker::new(s, &run)).collect();
    let rounds = config.warmup + config.rounds.max(1);
    for round in 0..rounds {
        on_event(BenchEvent::Round {
            round: round + 1,
            rounds,
            warmup: round < config.warmup,
        });
        let started = Instant::now();
        let mut results = vec![Vec::new(); supervisors.len()];
        // Scenario by scenario, each implementation in turn, the order
        // rotating: the calls a ratio pairs run seconds apart at most, so
        // a load that comes and goes weighs on both.
        for (k, scenario) in scenarios.iter().enumerate() {
            for i in rotation(supervisors.len(), round + k as u32) {
                if config.interrupt.is_set() {
                    break;
                }
                results[i].push(workers[i].run(scenario, 1).await);
                on_event(BenchEvent::Scenario { implementation: i });
            }
        }
        on_event(BenchEvent::RoundDone {
            elapsed: started.elapsed(),
            scenarios: results[0].len(),
            implementations: supervisors.len(),
        });
        if round >= config.warmup {
            for (i, results) in results.iter().enumerate() {
                samples[i].extend(samples_of(results, round - config.warmup));
            }
        }
    }
    for worker in &mut workers {
        worker.shutdown().await;
    }
    let startup: Vec<Stats> = startups.iter().map(|times| Stats::of(times)).collect();
    let implementations = infos
        .into_iter()
        .flatten()
        .zip(&startup)
        .zip(supervisors)
        .map(|((info, stats), supervisor)| Timed {
            name: info.name,
            version: info.version,
            command: supervisor.implementation().to_string(),
            startup: *stats,
            startup_ratio: ratio(stats, &startup[0]),
        })
        .collect::<Vec<_>>();
    let (tools, mut warnings) = tabulate(&samples, &implementations, config);
    for (timed, stats) in implementations.iter().zip(&startup) {
        warnings.extend(unstable(
            &timed.name,
            "start-up",
            stats,
            config.spread_limit,
        ));
    }
    Ok(Bench {
        rounds: config.rounds.max(1),
        warmup: config.warmup,
        implementations,
        tools,
        warnings,
    })
}

/// The order of the implementations in round `n`: rotated by one each round.
pub(crate) fn rotation(count: usize, n: u32) -> impl Iterator<Item = usize> {
    let start = n as usize % count.max(1);
    (0..count).map(move |k| (start + k) % count)
}

fn samples_of(results: &[ScenarioResult], round: u32) -> impl Iterator<Item = Sample> + '_ {
    results.iter().flat_map(move |result| {
        result.observed.iter().filter_map(move |observed| {
            let timing = observed.timing.as_ref()?;
            let step = result.steps.iter().find(|s| s.index == observed.step);
            Some(Sample {
                key: (result.id.clone(), observed.step),
                tool: timing.tool.clone(),
                round,
                elapsed: timing.elapsed,
                passed: step.is_some_and(|s| s.verdict == crate::run::Verdict::Pass),
            })
        })
    })
}

/// The rows per tool and `all tools`, and the unstable ones.
pub(crate) fn tabulate(
    samples: &[Vec<Sample>],
    implementations: &[Timed],
    config: &BenchConfig,
) -> (Vec<ToolRow>, Vec<String>) {
    let tools: BTreeSet<&str> = samples.iter().flatten().map(|s| s.tool.as_str()).collect();
    let mut warnings = Vec::new();
    let mut rows = Vec::new();
    for tool in tools.into_iter().map(Some).chain([None]) {
        let of = |i: usize| -> Vec<&Sample> {
            samples[i]
                .iter()
                .filter(|s| tool.is_none_or(|t| s.tool == t))
                .collect()
        };
        let first = of(0);
        let cells = (0..samples.len())
            .map(|i| {
                let mine = of(i);
                if mine.is_empty() {
                    return None;
                }
                let times: Vec<Duration> = mine.iter().map(|s| s.elapsed).collect();
                if let Some(tool) = tool {
                    let name = &implementations[i].name;
                    warnings.extend(unstable_rounds(name, tool, &mine, config.spread_limit));
                }
                Some(ToolCell {
                    stats: Stats::of(&times),
                    ratio: common_ratio(&mine, &first),
                    paired: paired_ratio(&mine, &first),
                })
            })
            .collect();
        rows.push(ToolRow {
            tool: tool.unwrap_or(ALL_TOOLS).to_owned(),
            cells,
        });
    }
    (rows, warnings)
}

/// p50 over the first's p50, on the scenario steps both called and both
/// passed.
fn common_ratio(mine: &[&Sample], first: &[&Sample]) -> Option<f64> {
    let passed = |samples: &[&Sample]| -> BTreeSet<(String, usize)> {
        samples
            .iter()
            .filter(|s| s.passed)
            .map(|s| s.key.clone())
            .collect()
    };
    let (theirs, ours) = (passed(first), passed(mine));
    let pick = |samples: &[&Sample], other: &BTreeSet<(String, usize)>| -> Vec<Duration> {
        samples
            .iter()
            .filter(|s| s.passed && other.contains(&s.key))
            .map(|s| s.elapsed)
            .collect()
    };
    let a = pick(mine, &theirs);
    let b = pick(first, &ours);
    if a.is_empty() || b.is_empty() {
        return None;
    }
    Some(ratio(&Stats::of(&a), &Stats::of(&b)))
}

fn ratio(a: &Stats, b: &Stats) -> f64 {
    if b.p50_ms > 0.0 {
        a.p50_ms / b.p50_ms
    } else {
        f64::NAN
    }
}

/// A warning when the medians of the rounds spread too widely.
fn unstable_rounds(name: &str, tool: &str, samples: &[&Sample], limit: f64) -> Option<String> {
    let mut rounds: BTreeMap<u32, Vec<Duration>> = BTreeMap::new();
    for sample in samples {
        rounds.entry(sample.round).or_default().push(sample.elapsed);
    }
    if rounds.len() < 2 {
        return None;
    }
    let medians: Vec<Duration> = rounds.values().map(|t| Stats::of(t).p50()).collect();
    unstable(
        name,
        &format!("{tool} round medians"),
        &Stats::of(&medians),
        limit,
    )
}

/// A warning when `stats` spread more than `limit` around their median.
fn unstable(name: &str, what: &str, stats: &Stats, limit: f64) -> Option<String> {
    let spread = stats.spread();
    (spread > limit).then(|| {
        format!(
            "{name} {what}: {:.3}–{:.3} ms, spread {:.0}% > {:.0}%",
            stats.min_ms,
            stats.max_ms,
            spread * 100.0,
            limit * 100.0
        )
    })
}
