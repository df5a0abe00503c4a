//! Which scenario directories and specifications a command reads, and
//! loading them all with every problem of every file reported at once:
//! each scenario's format, then the clauses its `spec:` cites.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use toolpass::builtin::Builtin;
use toolpass::spec::builtin_clauses;
use toolpass_scenario::{Clauses, LoadErrors, Scenario, load_dir};

#[derive(Debug, Args)]
pub(super) struct ScenarioDirs {
    /// A scenario directory (repeatable); ids are paths under it. Without
    /// one, the built-in suite: read from the checkout's scenarios/ when
    /// run inside the checkout the runner was built from, else the copy
    /// embedded in the binary.
    #[arg(long = "scenarios", value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Also read the built-in suite when `--scenarios` is given.
    #[arg(long)]
    with_builtin: bool,
    /// A specification of your own (repeatable): its clause headings
    /// (### `id` MUST|SHOULD|MAY, optionally ` · safety`) add to the
    /// built-in SPEC.md's for your scenarios' `spec:` to cite.
    #[arg(long = "spec", value_name = "FILE")]
    specs: Vec<PathBuf>,
}

/// A directory of scenarios a command reads.
enum Source {
    /// A `--scenarios DIR`.
    Dir(PathBuf),
    /// The built-in suite, wherever [`Builtin::here`] finds it.
    Builtin(Builtin),
}

impl ScenarioDirs {
    /// Where the built-in suite comes from, when the command reads it.
    pub(super) fn builtin(&self) -> Option<Builtin> {
        (self.dirs.is_empty() || self.with_builtin).then(Builtin::here)
    }

    /// Tells stderr where the built-in suite comes from, when the command
    /// reads it: a checkout's files and an installed binary's copy may
    /// differ, and a run should say which it judged.
    pub(super) fn announce_builtin(&self) -> anyhow::Result<()> {
        use std::io::Write as _;
        if let Some(builtin) = self.builtin() {
            writeln!(std::io::stderr(), "toolpass: {}", builtin.describe())
                .map_err(|e| anyhow::anyhow!("failed to write to stderr: {e}"))?;
        }
        Ok(())
    }

    fn sources(&self) -> Vec<Source> {
        let mut dirs = self.dirs.clone();
        let builtin = self.builtin();
        if let Some(Builtin::Checkout(dir)) = &builtin {
            dirs.push(dir.clone());
        }
        // `--scenarios scenarios --with-builtin` names one directory twice;
        // reading it once keeps that from looking like duplicate ids.
        let mut seen = Vec::new();
        dirs.retain(|dir| {
            let key = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        let mut sources: Vec<Source> = dirs.into_iter().map(Source::Dir).collect();
        if builtin == Some(Builtin::Embedded) {
            sources.push(Source::Builtin(Builtin::Embedded));
        }
        sources
    }
}

impl ScenarioDirs {
    /// The built-in clauses and those of every `--spec` file; or every
    /// problem of every file.
    fn clauses(&self) -> Result<Clauses, Vec<String>> {
        let lines =
            |e: LoadErrors| -> Vec<String> { e.errors().iter().map(ToString::to_string).collect() };
        let mut clauses = builtin_clauses().map_err(lines)?;
        let mut errors: Vec<String> = Vec::new();
        for path in &self.specs {
            let text = match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(e) => {
                    errors.push(format!(
                        "{}: cannot read the --spec file: {e}",
                        path.display()
                    ));
                    continue;
                }
            };
            match Clauses::parse(&text, path).and_then(|more| clauses.extend(more)) {
                Ok(()) => {}
                Err(e) => errors.extend(lines(e)),
            }
        }
        if errors.is_empty() {
            Ok(clauses)
        } else {
            Err(errors)
        }
    }
}

/// The scenarios of a command and the clauses they cite.
pub(super) struct Suite {
    /// Every scenario, sorted by id.
    pub(super) scenarios: Vec<Scenario>,
    /// The built-in clauses and those of `--spec` files, in file order.
    pub(super) clauses: Clauses,
    /// How many scenarios the filters selected before `--partition` took
    /// its shard of them.
    pub(super) selected: usize,
}

/// Every scenario of every directory, sorted by id, held to the clauses it
/// cites; or one `path:line:column: message` line per problem. A
/// `--scenarios` that is no directory is the outer error: there is nothing
/// to check, so the command could not work (exit 2), which is not a broken
/// scenario.
pub(super) fn load(dirs: &ScenarioDirs) -> anyhow::Result<Result<Suite, Vec<String>>> {
    let sources = dirs.sources();
    if let Some(missing) = sources.iter().find_map(|source| match source {
        Source::Dir(dir) if !dir.is_dir() => Some(dir),
        _ => None,
    }) {
        anyhow::bail!(
            "--scenarios {}: no such directory",
            toolpass::report::text::printable_line(&missing.display().to_string())
        );
    }
    let mut scenarios = Vec::new();
    let mut errors = Vec::new();
    let clauses = dirs.clauses().map_err(|e| errors.extend(e)).ok();
    for source in &sources {
        let loaded = match source {
            Source::Dir(dir) => load_dir(dir),
            Source::Builtin(builtin) => builtin.load(),
        };
        match loaded {
            Ok(loaded) => scenarios.extend(loaded),
            Err(e) => errors.extend(e.errors().iter().map(ToString::to_string)),
        }
    }
    // Two directories may hold the same id; a filter or a report could not
    // tell them apart, so that is an error rather than a silent shadowing.
    let mut seen: BTreeMap<&str, &Scenario> = BTreeMap::new();
    for scenario in &scenarios {
        if let Some(first) = seen.insert(&scenario.id, scenario) {
            errors.push(format!(
                "{}: the id `{}` is also the scenario {}",
                display_path(scenario),
                scenario.id,
                display_path(first),
            ));
        }
    }
    if let Some(clauses) = &clauses
        && let Err(e) = clauses.check_all(&scenarios)
    {
        errors.extend(e.errors().iter().map(ToString::to_string));
    }
    match clauses {
        Some(clauses) if errors.is_empty() => {
            scenarios.sort_by(|a, b| a.id.cmp(&b.id));
            let selected = scenarios.len();
            Ok(Ok(Suite {
                scenarios,
                clauses,
                selected,
            }))
        }
        _ => Ok(Err(errors)),
    }
}

/// The scenarios of `dirs` that `filter` selects, sorted by id, with the
/// clauses they cite; or, when a file does not load, the exit code after
/// reporting every problem: 2, the runner could not work (1 would read as
/// the implementation failing).
pub(super) fn select_suite(
    dirs: &ScenarioDirs,
    filter: &super::filter::FilterArgs,
) -> anyhow::Result<Result<Suite, std::process::ExitCode>> {
    // A bad glob is reported before the scenarios are read.
    let filter = filter.compile()?;
    match load(dirs)? {
        Ok(mut suite) => {
            suite.scenarios.retain(|s| filter.matches(s));
            suite.selected = suite.scenarios.len();
            suite.scenarios.retain(|s| filter.in_shard(s));
            Ok(Ok(suite))
        }
        Err(errors) => {
            super::report_load_errors(&errors)?;
            Ok(Err(std::process::ExitCode::from(2)))
        }
    }
}

/// [`select_suite`]'s scenarios for a command that acts on the scenarios (`what`: "run",
/// "time"): an empty selection is an error, since a mistyped filter must
/// not pass CI by doing nothing.
pub(super) fn select_some(
    dirs: &ScenarioDirs,
    filter: &super::filter::FilterArgs,
    what: &str,
) -> anyhow::Result<Result<Vec<Scenario>, std::process::ExitCode>> {
    select_unless(dirs, filter, what, |suite| suite.scenarios.is_empty())
}

/// [`select_some`] for `run`, where an empty shard of a selection is no
/// error: with few scenarios and many shards one may hold none, and it
/// still writes its reports, so `toolpass merge` gets every shard.
pub(super) fn select_to_run(
    dirs: &ScenarioDirs,
    filter: &super::filter::FilterArgs,
) -> anyhow::Result<Result<Vec<Scenario>, std::process::ExitCode>> {
    select_unless(dirs, filter, "run", |suite| suite.selected == 0)
}

/// The selected scenarios, or an error when `empty` says there is nothing
/// to `what`.
fn select_unless(
    dirs: &ScenarioDirs,
    filter: &super::filter::FilterArgs,
    what: &str,
    empty: fn(&Suite) -> bool,
) -> anyhow::Result<Result<Vec<Scenario>, std::process::ExitCode>> {
    let suite = select_suite(dirs, filter)?;
    if suite.as_ref().is_ok_and(empty) {
        anyhow::bail!(
            "nothing to {what}: no scenario matches (see `toolpass list` with the same flags)"
        );
    }
    Ok(suite.map(|suite| suite.scenarios))
}

fn display_path(scenario: &Scenario) -> String {
    scenario
        .path
        .as_deref()
        .map_or_else(|| scenario.id.clone(), |p| p.display().to_string())
}
