//! The loader: reads scenario files, checks each one completely and
//! reports every problem of every file as `path:line:column: message`
//! before anything runs.
//!
//! In a scenario directory, every `*.yaml` file is a scenario (`README.yaml`
//! too), its id the path under the directory without `.yaml`. Snapshots
//! (`<scenario>.<name>.snap`) sit next to their scenario; one that no
//! scenario uses is an error, so renames do not leave stale files behind.
//! Hidden entries (`.name`) and other files are ignored, except `*.yml`,
//! which is an error rather than a scenario silently skipped.
//!
//! A directory is read from the disk ([`load_dir`]) or from a copy held in
//! memory ([`load_files`]: the runner's built-in suite, embedded in its
//! binary at build time); both are checked alike and name their files the
//! same way, so a report points at `scenarios/edit/x.yaml:12:3` either way.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_saphyr::MessageFormatter as _;

use crate::located::Pos;
use crate::matcher::{Matcher, Snapshot, SnapshotName};
use crate::scenario::Scenario;
use crate::step::StepKind;
use crate::{recover, validate};

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    path: PathBuf,
    pos: Pos,
    message: String,
}

/// Every problem found, sorted by file and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadErrors(Vec<LoadError>);

impl LoadError {
    pub(crate) fn new(path: &Path, pos: Pos, message: impl Into<String>) -> LoadError {
        LoadError {
            path: path.to_owned(),
            pos,
            message: message.into(),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where in the file; [`Pos::UNKNOWN`] for a problem of the whole file.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// What is wrong, without the path and position.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// `path:line:column: message`, or `path: message` without a position.
impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pos.is_known() {
            write!(f, "{}:{}: {}", self.path.display(), self.pos, self.message)
        } else {
            write!(f, "{}: {}", self.path.display(), self.message)
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadErrors {
    /// The problems.
    pub fn errors(&self) -> &[LoadError] {
        &self.0
    }

    pub(crate) fn sorted(mut errors: Vec<LoadError>) -> LoadErrors {
        errors.sort_by(|a, b| (&a.path, a.pos).cmp(&(&b.path, b.pos)));
        LoadErrors(errors)
    }
}

/// One problem per line.
impl fmt::Display for LoadErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadErrors {}

/// Loads and checks every scenario under `dir`, sorted by id; or every
/// problem of every file.
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, LoadErrors> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    walk(dir, &mut files, &mut errors);
    load_all(dir, files, errors, &Source::Disk)
}

/// Loads and checks every scenario of a directory held in memory, sorted
/// by id; or every problem of every file. `files` are its files as (path
/// under the directory, bytes). Errors, [`Scenario::path`] and snapshot
/// files name each file `dir/<path>`, as [`load_dir`] would on a copy of
/// the directory at `dir`; snapshots are read from `files` too.
pub fn load_files<'a>(
    dir: &Path,
    files: impl IntoIterator<Item = (&'a Path, &'a [u8])>,
) -> Result<Vec<Scenario>, LoadErrors> {
    // Hidden entries are skipped as the disk walk skips them.
    let memory: BTreeMap<PathBuf, &[u8]> = files
        .into_iter()
        .filter(|(path, _)| {
            !path
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        })
        .map(|(path, bytes)| (dir.join(path), bytes))
        .collect();
    let paths = memory.keys().cloned().collect();
    load_all(dir, paths, Vec::new(), &Source::Memory(&memory))
}

/// Where a directory's bytes are read from.
enum Source<'a> {
    Disk,
    /// Each file's bytes by its path, the directory's path included.
    Memory(&'a BTreeMap<PathBuf, &'a [u8]>),
}

impl Source<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self {
            Source::Disk => fs::read(path),
            Source::Memory(files) => files
                .get(path)
                .map(|bytes| bytes.to_vec())
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound)),
        }
    }
}

/// The scenarios among `files` (found under `dir`, with the problems met
/// finding them), checked, with their snapshots read from `source`.
fn load_all(
    dir: &Path,
    mut files: Vec<PathBuf>,
    mut errors: Vec<LoadError>,
    source: &Source<'_>,
) -> Result<Vec<Scenario>, LoadErrors> {
    files.sort();
    let mut scenarios = Vec::new();
    let mut snapshots = BTreeSet::new();
    for path in &files {
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => {
                let id = scenario_id(dir, path);
                match load(path, &id, source) {
                    Ok((scenario, files)) => {
                        snapshots.extend(files);
                        scenarios.push(scenario);
                    }
                    Err(e) => errors.extend(e.0),
                }
            }
            Some("yml") => errors.push(LoadError::new(
                path,
                Pos::UNKNOWN,
                "scenario files end in .yaml: rename it, or it would never run",
            )),
            _ => {}
        }
    }
    // A snapshot is only judged unused when its scenario loaded: a broken
    // scenario already has its own error.
    let broken: BTreeSet<PathBuf> = errors.iter().map(|e| e.path.clone()).collect();
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "snap"))
    {
        if !snapshots.contains(path) && !broken.iter().any(|b| is_snapshot_of(path, b)) {
            errors.push(LoadError::new(
                path,
                Pos::UNKNOWN,
                "no scenario uses this snapshot: delete it, or name it in a `snapshot:` matcher",
            ));
        }
    }
    if errors.is_empty() {
        Ok(scenarios)
    } else {
        Err(LoadErrors::sorted(errors))
    }
}

/// Loads and checks one scenario file, giving it `id`; its snapshots are
/// read from next to it.
pub fn load_file(path: &Path, id: &str) -> Result<Scenario, LoadErrors> {
    load(path, id, &Source::Disk).map(|(scenario, _)| scenario)
}

/// A scenario and its snapshot files.
fn load(
    path: &Path,
    id: &str,
    source: &Source<'_>,
) -> Result<(Scenario, Vec<PathBuf>), LoadErrors> {
    let text = match source.read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            LoadErrors(vec![LoadError::new(
                path,
                Pos::UNKNOWN,
                "the file is not UTF-8",
            )])
        })?,
        Err(e) => {
            return Err(LoadErrors(vec![LoadError::new(
                path,
                Pos::UNKNOWN,
                format!("cannot read the file: {e}"),
            )]));
        }
    };
    let mut scenario = parse(&text, path, id)?;
    scenario.path = Some(path.to_owned());
    let snapshots = attach_snapshots(&mut scenario, path, source)?;
    Ok((scenario, snapshots))
}

/// Parses and checks a scenario from text; errors name the file
/// `<id>.yaml`. Snapshot matchers are left without a file.
pub fn parse_str(text: &str, id: &str) -> Result<Scenario, LoadErrors> {
    parse(text, &PathBuf::from(format!("{id}.yaml")), id)
}

fn parse(text: &str, path: &Path, id: &str) -> Result<Scenario, LoadErrors> {
    // YAML 1.2 reading: `yes`, `no`, `on`, `off` stay text (an argument
    // `answer: no` is the string "no"), and so does `0755` rather than
    // becoming the number 755.
    let options = serde_saphyr::options! {
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
    };
    let read = |text: &str| {
        serde_saphyr::from_str_with_options::<Scenario>(text, options.clone())
            .map_err(|e| yaml_error(&e))
    };
    let mut scenario = match read(text) {
        Ok(scenario) => scenario,
        Err(first) => {
            let recovered = recover::recover(text, &options, first, read);
            let mut errors: Vec<LoadError> = recovered
                .problems
                .into_iter()
                .map(|(pos, message)| LoadError::new(path, pos, message))
                .collect();
            // What the blanked parts left readable is checked too, above
            // the first blanked line only: below it a removed `capture` or
            // snapshot would make problems of its own.
            if let Some((rest, first_blanked)) = recovered.rest {
                errors.extend(
                    validate::check(&rest)
                        .into_iter()
                        .filter(|p| p.pos.is_known() && p.pos.line < first_blanked)
                        .map(|p| LoadError::new(path, p.pos, p.message)),
                );
            }
            return Err(LoadErrors::sorted(errors));
        }
    };
    let problems = validate::check(&scenario);
    if !problems.is_empty() {
        return Err(LoadErrors::sorted(
            problems
                .into_iter()
                .map(|p| LoadError::new(path, p.pos, p.message))
                .collect(),
        ));
    }
    scenario.id = id.to_owned();
    Ok(scenario)
}

/// Where a YAML parse error is and what it says, in the words a scenario
/// author knows and without the parser's own snippet: for other YAML files
/// of a run (the expected-failures file) to report like scenarios do.
pub fn yaml_error(error: &serde_saphyr::Error) -> (Pos, String) {
    let pos = error.location().map_or(Pos::UNKNOWN, Pos::from_location);
    let message = serde_saphyr::UserMessageFormatter.format_message(error.without_snippet());
    (pos, plain(&message))
}

/// The parser's terse words for a wrong shape, in the words a scenario
/// author knows.
fn plain(message: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("expected string scalar", "expected a string"),
        ("expected sequence start", "expected a list"),
        ("expected mapping start", "expected a map"),
        (
            "invalid u32",
            "expected a whole number from 0 to 4294967295",
        ),
        ("invalid u64", "expected a whole number from 0"),
        ("invalid i64", "expected a whole number"),
        ("invalid boolean", "expected true or false"),
    ];
    if let Some(rest) = message.strip_prefix("unknown field ") {
        // serde's word for a struct member; a scenario author writes keys.
        return format!("unknown key {rest}");
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        return format!("missing key {rest}");
    }
    WORDS
        .iter()
        .find(|(terse, _)| message == *terse)
        .map_or_else(|| message.to_owned(), |(_, plain)| (*plain).to_owned())
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<LoadError>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(LoadError::new(
                dir,
                Pos::UNKNOWN,
                format!("cannot read the directory: {e}"),
            ));
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                errors.push(LoadError::new(
                    dir,
                    Pos::UNKNOWN,
                    format!("cannot list: {e}"),
                ));
                continue;
            }
        };
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files, errors);
        } else {
            files.push(path);
        }
    }
}

fn scenario_id(dir: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(dir).unwrap_or(path).with_extension("");
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether `snap` is named like a snapshot of the scenario file `scenario`.
fn is_snapshot_of(snap: &Path, scenario: &Path) -> bool {
    let (Some(stem), Some(name)) = (
        scenario.file_stem().and_then(|s| s.to_str()),
        snap.file_name().and_then(|s| s.to_str()),
    ) else {
        return false;
    };
    snap.parent() == scenario.parent() && name.starts_with(&format!("{stem}."))
}

/// Every matcher of a step, with the step's number from 1.
fn matchers_mut(scenario: &mut Scenario) -> Vec<(usize, &mut Matcher)> {
    let mut out = Vec::new();
    for (i, step) in scenario.steps.iter_mut().enumerate() {
        let n = i + 1;
        let expects = match &mut step.value.kind {
            StepKind::Call(call) => vec![&mut call.expect],
            StepKind::Batch(batch) => batch
                .calls
                .iter_mut()
                .map(|c| &mut c.value.expect)
                .collect(),
            StepKind::Confirm(confirm) => vec![&mut confirm.expect],
            StepKind::Join(join) => vec![&mut join.expect],
            StepKind::Cancel(cancel) => vec![&mut cancel.expect],
            StepKind::WaitUpdate(wait) => {
                out.push((n, &mut wait.matcher));
                Vec::new()
            }
            StepKind::ExpectFiles(files) => {
                for expectation in files.files.values_mut() {
                    out.extend(expectation.matches.as_mut().map(|m| (n, m)));
                }
                Vec::new()
            }
            StepKind::WaitNotice(wait) => {
                out.push((n, &mut wait.matcher));
                Vec::new()
            }
            _ => Vec::new(),
        };
        for expect in expects.into_iter().flatten() {
            out.extend(expect.llm.as_mut().map(|m| (n, m)));
            for matcher in expect.result_file_paths.iter_mut().flatten() {
                out.push((n, matcher));
            }
        }
    }
    out
}

/// The snapshot file of a condition in step `n` of the scenario at `path`.
fn snapshot_file(path: &Path, n: usize, snapshot: &Snapshot) -> PathBuf {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scenario");
    let name = match &snapshot.name().value {
        SnapshotName::Step => n.to_string(),
        SnapshotName::Named(name) => name.clone(),
    };
    path.with_file_name(format!("{stem}.{name}.snap"))
}

/// Ties each snapshot matcher to its file and reads it; the files.
fn attach_snapshots(
    scenario: &mut Scenario,
    path: &Path,
    source: &Source<'_>,
) -> Result<Vec<PathBuf>, LoadErrors> {
    let mut errors = Vec::new();
    let mut files = Vec::new();
    for (n, matcher) in matchers_mut(scenario) {
        for snapshot in matcher.snapshots_mut() {
            let file = snapshot_file(path, n, snapshot);
            let text = source.read(&file).and_then(|bytes| {
                String::from_utf8(bytes)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
            });
            let expected = match text {
                Ok(text) => Some(text),
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => {
                    errors.push(LoadError::new(
                        &file,
                        Pos::UNKNOWN,
                        format!("cannot read the snapshot: {e}"),
                    ));
                    None
                }
            };
            files.push(file.clone());
            snapshot.attach(file, expected);
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(LoadErrors::sorted(errors))
    }
}
