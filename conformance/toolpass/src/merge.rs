//! `toolpass merge`: the `--jsonl` reports of a run's shards
//! (`--partition hash:K/N`, K = 1..N) joined back into the one run they
//! split, so every report, the summary and the exit code come out as one
//! unsharded run's would.
//!
//! The shards must be of one run: the same runner version and protocol,
//! the same implementation, the same settings (jobs aside: each CI job
//! chooses its own), every shard of N exactly once, and each holding only
//! scenarios of its own shard (so none overlap). Anything else is refused
//! naming the files, since a merge of mismatched runs would be a report of
//! no run at all.
//!
//! Expected failures need no second pass: each shard applied the file to
//! its results (xfail, xpass, an entry failing differently or skipped) and
//! checked for staleness the entries of its own ids (`StaleCheck::Shard`),
//! so each entry was judged by exactly one shard. A shard's footer lists
//! those problems before its results' own failures; the merge takes them
//! from there and tallies the results again.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::partition::Partition;
use crate::report::read::ReadReport;
use crate::report::{RunInfo, Settings, Summary, parse_rfc3339, run_failure};
use crate::run::ScenarioResult;

/// The run the shards add up to.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The run's header: the shards' runner and implementation, the first
    /// shard's start, their settings with `jobs` summed and `merged` naming
    /// the files.
    pub info: RunInfo,
    /// Every shard's results, sorted by id and repetition.
    pub results: Vec<ScenarioResult>,
    /// Their tallies, with the shards' other problems (expected-failure
    /// entries, nondeterminism); the duration is the longest shard's, as
    /// the shards ran side by side.
    pub summary: Summary,
}

/// The settings that may differ between shards of one run: how many
/// workers each had, which shard it was, what it was merged from.
const PER_SHARD: [&str; 3] = ["jobs", "partition", "merged"];

/// Joins `reports`, the shards of one run in any order.
pub fn merge(reports: Vec<ReadReport>) -> Result<Merged, String> {
    let Some(first) = reports.first() else {
        return Err("no report to merge".into());
    };
    let first_file = first.file.clone();
    let first_partition = partition(first, &settings(first)?)?;
    let mut shards: BTreeMap<u64, (ReadReport, Settings)> = BTreeMap::new();
    for report in reports {
        let settings = settings(&report)?;
        let partition = partition(&report, &settings)?;
        if partition.total() != first_partition.total() {
            return Err(format!(
                "{} is shard {partition} and {first_file} shard {first_partition}: shards of \
                 different runs",
                report.file
            ));
        }
        if let Some((twin, _)) = shards.get(&partition.shard()) {
            return Err(format!(
                "{} and {} are both shard {partition}: each shard once",
                twin.file, report.file
            ));
        }
        check_shard(&report, partition)?;
        shards.insert(partition.shard(), (report, settings));
    }
    let total = first_partition.total();
    if let Some(missing) = (1..=total).find(|k| !shards.contains_key(k)) {
        let given: Vec<String> = shards
            .values()
            .map(|(r, s)| {
                format!(
                    "{} ({})",
                    r.file,
                    s.partition.as_deref().unwrap_or_default()
                )
            })
            .collect();
        return Err(format!(
            "shard hash:{missing}/{total} is missing (given: {}): a merge of some shards is \
             no report of the run",
            given.join(", ")
        ));
    }
    let shards: Vec<(ReadReport, Settings)> = shards.into_values().collect();
    let (head, head_settings) = &shards[0];
    for (report, settings) in &shards[1..] {
        same_run(head, head_settings, report, settings)?;
    }
    let mut results = Vec::new();
    let mut problems = Vec::new();
    let mut started: Option<SystemTime> = None;
    let mut duration = Duration::ZERO;
    for (report, _) in &shards {
        problems.extend(other_problems(report)?);
        let at = parse_rfc3339(&report.header.started).ok_or_else(|| {
            format!(
                "{}: the header's `started` {:?} is not RFC 3339 in UTC",
                report.file, report.header.started
            )
        })?;
        started = Some(started.map_or(at, |s| s.min(at)));
        duration = duration.max(report.duration);
        results.extend(report.results.iter().cloned());
    }
    results.sort_by(|a, b| (&a.id, a.repetition).cmp(&(&b.id, b.repetition)));
    let mut config = head_settings.clone();
    config.jobs = shards.iter().map(|(_, s)| s.jobs).sum();
    config.partition = None;
    config.merged = shards.iter().map(|(r, _)| r.file.clone()).collect();
    let info = RunInfo {
        toolpass: head.header.toolpass.clone(),
        implementation: head.header.implementation.clone(),
        started: started.unwrap_or(SystemTime::UNIX_EPOCH),
        config,
    };
    let summary = Summary::new(&results, duration, problems);
    Ok(Merged {
        info,
        results,
        summary,
    })
}

fn settings(report: &ReadReport) -> Result<Settings, String> {
    report
        .header
        .settings()
        .map_err(|e| format!("{}: {e}", report.file))
}

fn partition(report: &ReadReport, settings: &Settings) -> Result<Partition, String> {
    let Some(text) = &settings.partition else {
        return Err(format!(
            "{} is no shard: it was not run with --partition hash:K/N, and merge joins the \
             shards of one run",
            report.file
        ));
    };
    text.parse()
        .map_err(|e| format!("{}: the header's partition {e}", report.file))
}

/// Refuses a report holding a scenario of another shard: shards that
/// overlap, or a report edited since.
fn check_shard(report: &ReadReport, partition: Partition) -> Result<(), String> {
    match report.results.iter().find(|r| !partition.takes(&r.id)) {
        Some(result) => Err(format!(
            "{} (shard {partition}) holds `{}`, which is in shard hash:{}/{}: the shards overlap",
            report.file,
            result.id,
            crate::partition::shard_of(&result.id, partition.total()),
            partition.total()
        )),
        None => Ok(()),
    }
}

/// Refuses two shards of different runs, naming what differs.
fn same_run(
    head: &ReadReport,
    head_settings: &Settings,
    report: &ReadReport,
    settings: &Settings,
) -> Result<(), String> {
    let differ = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        Err(format!(
            "{} and {} are not shards of one run: {what} {a:?} and {b:?}",
            head.file, report.file
        ))
    };
    if head.header.toolpass != report.header.toolpass {
        return differ(
            "the runner's versions are",
            &head.header.toolpass,
            &report.header.toolpass,
        );
    }
    if head.header.protocol != report.header.protocol {
        return differ(
            "the protocols are",
            &head.header.protocol,
            &report.header.protocol,
        );
    }
    if head.header.implementation != report.header.implementation {
        return differ(
            "the implementations are",
            &head.header.implementation,
            &report.header.implementation,
        );
    }
    let (a, b) = (shared(head_settings), shared(settings));
    if let Some(key) = a.keys().chain(b.keys()).find(|k| a.get(*k) != b.get(*k)) {
        let show = |m: &serde_json::Map<String, Value>| {
            m.get(key)
                .map_or_else(|| "absent".to_owned(), Value::to_string)
        };
        return differ(&format!("the settings' `{key}` are"), &show(&a), &show(&b));
    }
    Ok(())
}

/// The settings every shard of a run shares, as the header writes them.
fn shared(settings: &Settings) -> serde_json::Map<String, Value> {
    let mut map = match serde_json::to_value(settings) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    for key in PER_SHARD {
        map.remove(key);
    }
    map
}

/// The shard's problems that are not one of its results' own failures
/// (which the merge tallies again): its footer lists them first.
fn other_problems(report: &ReadReport) -> Result<Vec<String>, String> {
    let own: Vec<String> = report.results.iter().filter_map(run_failure).collect();
    let others = report.problems.len().checked_sub(own.len());
    match others {
        Some(n) if report.problems[n..] == own[..] => Ok(report.problems[..n].to_vec()),
        _ => Err(format!(
            "{}: the footer's problems do not end with its results' own failures: was the \
             report edited?",
            report.file
        )),
    }
}

#[cfg(test)]
mod tests;
