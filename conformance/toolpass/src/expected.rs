//! The expected-failures file (`--expected-failures FILE`): the failures an
//! implementation knows about, so CI stays green on them and goes red on
//! anything else — an unlisted failure, a listed entry that now passes,
//! fails differently, or did not run.
//!
//! ```yaml
//! # One entry per known failure: a whole scenario, or one step of it (#N,
//! # from 1). `message` is an optional prefix of the first failure's
//! # `what: message`; `reason` and `issue` are for people.
//! - id: edit/fuzzy/nbsp
//!   message: "status: expected status success"
//!   reason: NBSP is not folded yet
//!   issue: https://github.com/example/agent/issues/12
//! - edit/apply/dollar-literal#3
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toolpass_scenario::fuzzing::check_positioned;
use toolpass_scenario::{Located, Pos, yaml_error};

use crate::partition::Partition;
use crate::record::quote;
use crate::run::{ScenarioResult, Verdict};

/// The longest `message` prefix `--fix` writes: enough to tell failures
/// apart, short enough to survive small wording changes after it.
const FIX_MESSAGE_CHARS: usize = 120;

/// One entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The scenario id.
    pub id: String,
    /// The step, from 1; the whole scenario when absent.
    pub step: Option<usize>,
    /// A prefix of the first failure's `what: message`.
    pub message: Option<String>,
    /// Why it fails.
    pub reason: Option<String>,
    /// Where it is tracked.
    pub issue: Option<String>,
    /// Where it is written.
    pub pos: Pos,
}

impl Entry {
    /// `id` or `id#step`.
    pub fn key(&self) -> String {
        match self.step {
            Some(step) => format!("{}#{step}", self.id),
            None => self.id.clone(),
        }
    }
}

/// Which entries a run can call stale: those naming no scenario it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleCheck {
    /// None: a filtered run leaves scenarios out on purpose.
    Off,
    /// Every entry: the run took the whole suite.
    All,
    /// The entries whose id falls in this shard. A shard runs every
    /// scenario of the suite with such an id, so an entry of its ids that
    /// names none it ran is stale; each entry falls in exactly one shard,
    /// so the shards together check every entry once, as one run would.
    Shard(Partition),
}

impl StaleCheck {
    /// Whether an entry for the scenario `id` is checked.
    fn covers(self, id: &str) -> bool {
        match self {
            StaleCheck::Off => false,
            StaleCheck::All => true,
            StaleCheck::Shard(partition) => partition.takes(id),
        }
    }
}

/// The entries of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpectedFailures {
    /// Where they were read from.
    pub path: PathBuf,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

/// An entry as written: `- key` or `- {id, ...}`. Not `#[serde(untagged)]`,
/// whose error ("did not match any variant") would hide the field at fault.
#[derive(Debug)]
enum RawEntry {
    Key(String),
    Full(FullEntry),
}

impl<'de> Deserialize<'de> for RawEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RawEntry, D::Error> {
        struct Form;
        impl<'de> serde::de::Visitor<'de> for Form {
            type Value = RawEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "`scenario-id`, `scenario-id#step` or a map {id, message, reason, issue}",
                )
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<RawEntry, E> {
                Ok(RawEntry::Key(key.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<RawEntry, A::Error> {
                FullEntry::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawEntry::Full)
            }
        }
        deserializer.deserialize_any(Form)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FullEntry {
    id: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    issue: Option<String>,
}

impl ExpectedFailures {
    /// Reads a file. Errors read `path:line:column: message`; a missing file
    /// is one too, since running against no list when one was named would
    /// turn every listed failure red without saying why.
    pub fn load(path: &Path) -> Result<ExpectedFailures, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => ExpectedFailures::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
                "{}: no such expected-failures file (add --fix to create it from this run)",
                path.display()
            )),
            Err(e) => Err(format!("{}: cannot read the file: {e}", path.display())),
        }
    }

    /// [`ExpectedFailures::load`], but a missing file is an empty list:
    /// `--fix` creates it.
    pub fn load_or_empty(path: &Path) -> Result<ExpectedFailures, String> {
        if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            return Ok(ExpectedFailures {
                path: path.to_owned(),
                entries: Vec::new(),
            });
        }
        ExpectedFailures::load(path)
    }

    /// Parses the text of `path`.
    pub fn parse(text: &str, path: &Path) -> Result<ExpectedFailures, String> {
        let at = |pos: Pos, message: &str| {
            format!("{}:{}:{}: {message}", path.display(), pos.line, pos.column)
        };
        let raw: Option<Vec<Located<RawEntry>>> = serde_saphyr::from_str(text).map_err(|e| {
            let (pos, message) = yaml_error(&e);
            at(pos, &message)
        })?;
        let mut entries: Vec<Entry> = Vec::new();
        let mut seen = BTreeSet::new();
        for raw in raw.unwrap_or_default() {
            let pos = raw.pos;
            let full = match raw.value {
                RawEntry::Key(key) => FullEntry {
                    id: key,
                    message: None,
                    reason: None,
                    issue: None,
                },
                RawEntry::Full(full) => full,
            };
            let (id, step) = match full.id.split_once('#') {
                None => (full.id.clone(), None),
                Some((id, step)) => match step.parse::<usize>() {
                    Ok(n) if n >= 1 => (id.to_owned(), Some(n)),
                    _ => {
                        return Err(at(
                            pos,
                            &format!("`{}`: the step after # must be a number from 1", full.id),
                        ));
                    }
                },
            };
            if id.is_empty() {
                return Err(at(pos, "an entry with an empty scenario id"));
            }
            let entry = Entry {
                id,
                step,
                message: full.message,
                reason: full.reason,
                issue: full.issue,
                pos,
            };
            if !seen.insert(entry.key()) {
                return Err(at(pos, &format!("`{}` is listed twice", entry.key())));
            }
            entries.push(entry);
        }
        Ok(ExpectedFailures {
            path: path.to_owned(),
            entries,
        })
    }

    /// Applies the entries to the results: listed failures that fail as
    /// listed become `xfail`, listed ones that pass become `xpass`. Returns
    /// the run's problems from the file: entries that fail differently, are
    /// skipped, name a step that passed, or (as `stale` allows) name no
    /// scenario of the run.
    pub fn apply(&self, results: &mut [ScenarioResult], stale: StaleCheck) -> Vec<String> {
        let mut problems = Vec::new();
        let mut by_id: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
        for entry in &self.entries {
            by_id.entry(&entry.id).or_default().push(entry);
        }
        for result in results.iter_mut() {
            if let Some(entries) = by_id.get(result.id.as_str()) {
                problems.extend(self.apply_one(result, entries));
            }
        }
        for entry in &self.entries {
            if stale.covers(&entry.id) && !results.iter().any(|r| r.id == entry.id) {
                problems.push(self.problem(entry, "names no scenario of this run: remove it"));
            }
        }
        problems
    }

    fn apply_one(&self, result: &mut ScenarioResult, entries: &[&Entry]) -> Vec<String> {
        let mut problems = Vec::new();
        if result.verdict == Verdict::Skip {
            for entry in entries {
                problems.push(self.problem(entry, "is listed, but the scenario was skipped"));
            }
            return problems;
        }
        if result.verdict == Verdict::Pass {
            result.verdict = Verdict::Xpass;
            return problems;
        }
        if !result.verdict.is_failure() {
            return problems;
        }
        let mut all_match = true;
        for entry in entries {
            let actual = match entry.step {
                None => Some(first_headline(result)),
                Some(n) => match result.steps.iter().find(|s| s.index == n) {
                    Some(step) if step.verdict != Verdict::Pass => Some(step_headline(step)),
                    Some(_) => {
                        all_match = false;
                        problems.push(self.problem(entry, "is listed, but that step passed"));
                        continue;
                    }
                    None => None,
                },
            };
            let Some(actual) = actual else {
                all_match = false;
                problems.push(self.problem(entry, "is listed, but that step did not run"));
                continue;
            };
            if let Some(prefix) = &entry.message
                && !actual.starts_with(prefix.as_str())
            {
                all_match = false;
                problems.push(self.problem(
                    entry,
                    &format!(
                        "fails differently: expected a message starting {prefix:?}, got {actual:?}"
                    ),
                ));
            }
        }
        // With only step entries, every failing step must be listed.
        let whole = entries.iter().any(|e| e.step.is_none());
        let unlisted = !whole
            && (result.steps.is_empty()
                || result
                    .failed_steps()
                    .any(|s| !entries.iter().any(|e| e.step == Some(s.index))));
        if all_match && !unlisted {
            result.verdict = Verdict::Xfail;
        }
        problems
    }

    fn problem(&self, entry: &Entry, what: &str) -> String {
        format!(
            "{}:{}:{}: `{}` {what}",
            self.path.display(),
            entry.pos.line,
            entry.pos.column,
            entry.key()
        )
    }

    /// The file `--fix` writes for these results: one entry per failing
    /// step (the whole scenario when it stopped early or had no step), with
    /// the message prefix it failed with and the reason and issue of the
    /// entry it replaces, found by key, else by scenario id. Pending scenarios are left out: they are not
    /// scored.
    pub fn fixed(&self, results: &[ScenarioResult]) -> String {
        let old: BTreeMap<String, &Entry> = self.entries.iter().map(|e| (e.key(), e)).collect();
        let mut out = String::from(
            "# Expected failures for `toolpass run --expected-failures`; rewritten by `--fix`.\n\
             # Entries: `id` (the whole scenario) or `id#step`, with an optional `message`\n\
             # prefix, `reason` and `issue`, which --fix keeps.\n",
        );
        let mut written = BTreeSet::new();
        for result in results {
            let failing = result.verdict.is_failure() || result.verdict == Verdict::Xfail;
            if !failing
                || result.verdict == Verdict::Xpass
                || result.level == toolpass_scenario::Level::Pending
            {
                continue;
            }
            let whole = result.verdict.is_abort() || result.steps.is_empty();
            let keys: Vec<(String, String)> = if whole {
                vec![(result.id.clone(), first_headline(result))]
            } else {
                result
                    .failed_steps()
                    .map(|s| (format!("{}#{}", result.id, s.index), step_headline(s)))
                    .collect()
            };
            for (key, message) in keys {
                if !written.insert(key.clone()) {
                    continue;
                }
                // The entry it replaces: the same key, else the whole
                // scenario's, else one of its steps' (a scenario that now
                // stops early keeps the reason its failing steps had).
                let kept = old
                    .get(&key)
                    .or_else(|| old.get(&result.id))
                    .copied()
                    .or_else(|| self.entries.iter().find(|e| e.id == result.id));
                let _ = writeln!(out, "- id: {}", quote(&key));
                let _ = writeln!(out, "  message: {}", quote(&prefix(&message)));
                for (name, value) in [
                    ("reason", kept.and_then(|e| e.reason.as_deref())),
                    ("issue", kept.and_then(|e| e.issue.as_deref())),
                ] {
                    if let Some(value) = value {
                        let _ = writeln!(out, "  {name}: {}", quote(value));
                    }
                }
            }
        }
        out
    }
}

/// The first failure's `what: message`, or the reason the scenario stopped.
fn first_headline(result: &ScenarioResult) -> String {
    result
        .failed_steps()
        .next()
        .map(step_headline)
        .or_else(|| result.reason.clone())
        .unwrap_or_else(|| result.verdict.as_str().to_owned())
}

fn step_headline(step: &crate::run::StepResult) -> String {
    step.failures.first().map_or_else(
        || step.verdict.as_str().to_owned(),
        crate::run::Failure::headline,
    )
}

/// Fuzz entry point (the `expected_failures` target under `fuzz/`): the
/// file comes from a repository, so reading it must never panic or hang,
/// and every error, and every problem its entries cause, must say
/// `path:line:column:`. Panics, the fuzzer's failure signal, when not.
#[doc(hidden)]
#[allow(clippy::panic)]
pub fn fuzz_parse(data: &[u8]) {
    const PATH: &str = "expected.yaml";
    let text = String::from_utf8_lossy(data);
    let checked = match ExpectedFailures::parse(&text, Path::new(PATH)) {
        // On a run with no scenario, every entry is a problem at its line.
        Ok(file) => file
            .apply(&mut [], StaleCheck::All)
            .iter()
            .try_for_each(|problem| check_positioned(problem, PATH)),
        Err(error) => check_positioned(&error, PATH),
    };
    if let Err(message) = checked {
        panic!("{message}\ninput: {text:?}");
    }
}

/// The first line of a message, cut to [`FIX_MESSAGE_CHARS`].
fn prefix(message: &str) -> String {
    message
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(FIX_MESSAGE_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use toolpass_protocol::fuzzing::Mutator;

    use super::*;

    /// Mutated copies of files of every form, so that `cargo test` runs the
    /// fuzz target's property without the fuzzer.
    #[test]
    fn smoke() {
        let seeds: &[&[u8]] = &[
            b"- id: edit/fuzzy/nbsp\n  message: \"status: expected\"\n  reason: r\n  issue: https://x/1\n- edit/apply/dollar#3\n",
            b"# comment only\n",
            b"[a, b#2, {id: c, reason: \"x\"}]\n",
            b"- a#0\n- a\n- a\n- {id: '', bogus: 1}\n",
        ];
        for input in Mutator::new(0xE4FE).inputs(seeds, 3000) {
            fuzz_parse(&input);
        }
    }
}
