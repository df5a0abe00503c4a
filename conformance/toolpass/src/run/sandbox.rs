//! The scenario's sandbox: a fresh temporary directory holding the
//! scenario's `files`, changed by `fs` steps (the world outside the tool
//! layer) and inspected by `expect_files` steps.
//!
//! The runner reaches it only through a handle of the scenario's private
//! directory (the root's parent, holding `root/` and `outside/`), with the
//! operations of [`beneath`](super::beneath): a scenario whose link or path
//! leads out, even one that got past validation, gets a failure naming the
//! path, and nothing outside is created, changed or read.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, Metadata, PermissionsExt as _};
use tempfile::TempDir;
use toolpass_scenario::{
    Content, FileEntry, FileExpectation, FsAction, Mode, Mtime, OUTSIDE, OUTSIDE_PREFIX, ROOT,
    RelPath, Vars,
};

use super::any_of::any_of;
use super::beneath::{self, describe};
use super::judge::{Context, check_text};
use super::verdict::{Failure, SandboxFile};

/// A scenario's sandbox directory, removed on drop unless kept.
#[derive(Debug)]
pub(crate) struct Sandbox {
    dir: Option<TempDir>,
    root: PathBuf,
    /// The private directory (the root's parent), opened once: every path
    /// of the scenario is resolved beneath it.
    private: Dir,
}

impl Sandbox {
    /// A new empty sandbox. Its root is canonical, because that is the path
    /// an implementation resolves every argument to and shows the model.
    ///
    /// The root is `root/` inside a private temporary directory: an
    /// implementation that does not confine paths and follows a scenario's
    /// escape (`{root}/../x`, `{root}-x`) writes into that directory, which
    /// is removed with the sandbox, rather than into the shared `/tmp`.
    /// Beside the root is `outside/` (`{outside}`), where scenarios put the
    /// files a confined implementation must not reach.
    pub(crate) fn new() -> io::Result<Sandbox> {
        let dir = tempfile::Builder::new().prefix("toolpass-").tempdir()?;
        let private = Dir::open_ambient_dir(dir.path().canonicalize()?, ambient_authority())?;
        private.create_dir(ROOT)?;
        private.create_dir(OUTSIDE)?;
        let root = dir.path().join(ROOT).canonicalize()?;
        Ok(Sandbox {
            dir: Some(dir),
            root,
            private,
        })
    }

    /// The canonical root, `{root}` in the scenario.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Leaves the directory in place (`--keep`) and returns the root's path.
    pub(crate) fn keep(mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _kept = dir.keep();
        }
        self.root.clone()
    }

    /// Where a sandbox path key points, relative to the private directory:
    /// under the root, or under `{outside}` for a key that starts
    /// `{outside}/`.
    fn path(rel: &RelPath) -> PathBuf {
        match rel.as_str().strip_prefix(OUTSIDE_PREFIX) {
            Some(rest) => Path::new(OUTSIDE).join(rest),
            None => Path::new(ROOT).join(rel.as_str()),
        }
    }

    /// Writes `files` (the scenario's initial sandbox or an `fs: {write}`).
    pub(crate) fn write(
        &self,
        files: &BTreeMap<RelPath, FileEntry>,
        vars: &Vars,
    ) -> Result<(), Failure> {
        let dir = &self.private;
        for (rel, entry) in files {
            let path = Sandbox::path(rel);
            let io = |e: io::Error| io_failure(rel, "write", &e);
            match &entry.content {
                Content::Symlink(target) => {
                    let target = vars.substitute(target).map_err(|e| placeholder(rel, &e))?;
                    beneath::symlink(dir, &target, &path).map_err(io)?;
                }
                content => {
                    let data = bytes(content, vars, rel)?;
                    beneath::make_parent(dir, &path)
                        .and_then(|()| beneath::write_file(dir, &path, &data))
                        .map_err(io)?;
                }
            }
            if let Some(mode) = entry.mode {
                beneath::set_mode(dir, &path, mode.0).map_err(io)?;
            }
        }
        Ok(())
    }

    /// Carries out one `fs` action.
    pub(crate) fn apply(&self, action: &FsAction, vars: &Vars) -> Result<(), Failure> {
        let dir = &self.private;
        match action {
            FsAction::Write(files) => self.write(files, vars),
            FsAction::Append(files) => files.iter().try_for_each(|(rel, entry)| {
                let data = bytes(&entry.content, vars, rel)?;
                beneath::append(dir, &Sandbox::path(rel), &data)
                    .map_err(|e| io_failure(rel, "append to", &e))
            }),
            FsAction::Delete(paths) => paths.iter().try_for_each(|rel| {
                beneath::remove_any(dir, &Sandbox::path(rel))
                    .map_err(|e| io_failure(rel, "delete", &e))
            }),
            FsAction::Touch(times) => times.iter().try_for_each(|(rel, touch)| {
                let when = match touch.mtime {
                    None => SystemTime::now(),
                    Some(Mtime::At(secs)) => from_epoch(secs),
                    Some(Mtime::FromNow(secs)) => shift(SystemTime::now(), secs),
                };
                beneath::touch(dir, &Sandbox::path(rel), when)
                    .map_err(|e| io_failure(rel, "touch", &e))
            }),
            FsAction::Chmod(modes) => modes.iter().try_for_each(|(rel, mode)| {
                beneath::set_mode(dir, &Sandbox::path(rel), mode.0)
                    .map_err(|e| io_failure(rel, "chmod", &e))
            }),
            FsAction::Symlink(links) => links.iter().try_for_each(|(rel, target)| {
                let target = vars.substitute(target).map_err(|e| placeholder(rel, &e))?;
                beneath::symlink(dir, &target, &Sandbox::path(rel))
                    .map_err(|e| io_failure(rel, "symlink", &e))
            }),
            FsAction::Mkdir(paths) => paths.iter().try_for_each(|rel| {
                beneath::create_dir_all(dir, &Sandbox::path(rel))
                    .map_err(|e| io_failure(rel, "mkdir", &e))
            }),
        }
    }

    /// Checks one `expect_files` entry; every way it does not hold.
    pub(crate) fn check(
        &self,
        rel: &RelPath,
        expected: &FileExpectation,
        context: Context<'_>,
    ) -> Vec<Failure> {
        let what = format!("files[{}]", rel.as_str());
        if !expected.any_of.is_empty() {
            let alternatives = expected
                .any_of
                .iter()
                .map(|alternative| self.check(rel, alternative, context))
                .collect();
            return any_of(&what, alternatives);
        }
        let vars = context.vars;
        let path = Sandbox::path(rel);
        let dir = &self.private;
        let metadata = dir.symlink_metadata(&path);
        if expected.absent {
            return match metadata {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
                Err(e) => vec![Failure::new(
                    what,
                    format!("cannot stat it: {}", describe(&e)),
                )],
                Ok(m) => vec![Failure::new(
                    what,
                    format!("it should be absent, but a {} is there", file_type(&m)),
                )],
            };
        }
        let metadata = match metadata {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return vec![Failure::new(what, "it does not exist")];
            }
            Err(e) => {
                return vec![Failure::new(
                    what,
                    format!("cannot stat it: {}", describe(&e)),
                )];
            }
        };
        let mut failures = Vec::new();
        match &expected.content {
            Some(Content::Symlink(target)) => match dir.read_link_contents(&path) {
                Ok(actual) => match vars.substitute(target) {
                    Ok(target) if Path::new(&target) == actual => {}
                    Ok(target) => failures.push(Failure::diff(
                        &what,
                        "the symlink points elsewhere",
                        target,
                        actual.display().to_string(),
                    )),
                    Err(e) => failures.push(placeholder(rel, &e)),
                },
                Err(_) => failures.push(Failure::new(
                    &what,
                    format!(
                        "it should be a symlink, but it is a {}",
                        file_type(&metadata)
                    ),
                )),
            },
            Some(content) => match (dir.read(&path), bytes(content, vars, rel)) {
                (Ok(actual), Ok(expected)) if actual == expected => {}
                (Ok(actual), Ok(expected)) => failures.push(Failure::diff(
                    &what,
                    "the bytes on disk differ",
                    show_bytes(&expected),
                    show_bytes(&actual),
                )),
                (Err(e), _) => failures.push(cannot_read(&what, &e)),
                (_, Err(failure)) => failures.push(failure),
            },
            None => {}
        }
        if let Some(matcher) = &expected.matches {
            match dir.read(&path) {
                Ok(actual) => {
                    let actual = String::from_utf8_lossy(&actual);
                    match check_text(&what, matcher, &actual, context) {
                        Ok(failure) => failures.extend(failure),
                        Err(failure) => failures.push(failure),
                    }
                }
                Err(e) => failures.push(cannot_read(&what, &e)),
            }
        }
        if let Some(mode) = expected.mode {
            let actual = Mode(metadata.permissions().mode() & 0o7777);
            if actual != mode {
                failures.push(Failure::diff(
                    &what,
                    "the mode differs",
                    mode.to_string(),
                    actual.to_string(),
                ));
            }
        }
        failures
    }

    /// Every file and symlink under the root with what it holds, sorted by
    /// path (`toolpass record`).
    pub(crate) fn contents(&self) -> io::Result<Vec<(String, SandboxFile)>> {
        let dir = &self.private;
        let mut contents = Vec::new();
        for rel in self.entries()? {
            let path = Path::new(ROOT).join(&rel);
            let file = if dir.symlink_metadata(&path)?.is_symlink() {
                SandboxFile::Symlink(
                    dir.read_link_contents(&path)?
                        .to_string_lossy()
                        .into_owned(),
                )
            } else {
                match String::from_utf8(dir.read(&path)?) {
                    Ok(text) => SandboxFile::Text(text),
                    Err(e) => SandboxFile::Bytes(e.into_bytes()),
                }
            };
            contents.push((rel, file));
        }
        Ok(contents)
    }

    /// Every file and symlink under the root, as relative paths with `/`.
    pub(crate) fn entries(&self) -> io::Result<Vec<String>> {
        beneath::entries(&self.private, Path::new(ROOT))
    }
}

/// The bytes a content stands for (a text template substituted).
fn bytes(content: &Content, vars: &Vars, rel: &RelPath) -> Result<Vec<u8>, Failure> {
    match content {
        Content::Text(text) => vars
            .substitute(text)
            .map(String::into_bytes)
            .map_err(|e| placeholder(rel, &e)),
        Content::Bytes(bytes) => Ok(bytes.clone()),
        Content::Symlink(_) => Err(Failure::new(
            format!("files[{}]", rel.as_str()),
            "a symlink has no bytes",
        )),
    }
}

/// Bytes as text for a diff: UTF-8 as is, anything else with each byte
/// that is not printable ASCII as `\xNN`, so the diff shows where.
pub(crate) fn show_bytes(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.iter().fold(String::new(), |mut out, &b| {
            if b == b'\n' || (0x20..0x7f).contains(&b) && b != b'\\' {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("\\x{b:02x}"));
            }
            out
        }),
    }
}

fn placeholder(rel: &RelPath, error: &toolpass_scenario::Error) -> Failure {
    Failure::new(format!("files[{}]", rel.as_str()), error.to_string())
}

fn io_failure(rel: &RelPath, action: &str, error: &io::Error) -> Failure {
    Failure::new(
        "fs",
        format!("could not {action} {}: {}", rel.as_str(), describe(error)),
    )
}

fn cannot_read(what: &str, error: &io::Error) -> Failure {
    Failure::new(what, format!("cannot read it: {}", describe(error)))
}

fn from_epoch(secs: i64) -> SystemTime {
    shift(SystemTime::UNIX_EPOCH, secs)
}

fn shift(from: SystemTime, secs: i64) -> SystemTime {
    let by = Duration::from_secs(secs.unsigned_abs());
    if secs < 0 { from - by } else { from + by }
}

fn file_type(metadata: &Metadata) -> &'static str {
    let t = metadata.file_type();
    if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "directory"
    } else {
        "file"
    }
}
