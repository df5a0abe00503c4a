//! The scenario's sandbox: a fresh temporary directory holding the
//! scenario's `files`, changed by `fs` steps (the world outside the tool
//! layer) and inspected by `expect_files` steps.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tempfile::TempDir;
use toolpass_scenario::placeholder::template_of;
use toolpass_scenario::{
    Content, FileEntry, FileExpectation, FsAction, Mode, Mtime, OUTSIDE_PREFIX, RelPath, Vars,
    outside_of,
};

use super::judge::{Context, check_text};
use super::verdict::Failure;

/// A scenario's sandbox directory, removed on drop unless kept.
#[derive(Debug)]
pub(crate) struct Sandbox {
    dir: Option<TempDir>,
    root: PathBuf,
    /// `{outside}`: the directory beside the root, for files a scenario
    /// places outside the session.
    outside: PathBuf,
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
        let root = dir.path().join("root");
        fs::create_dir(&root)?;
        let root = root.canonicalize()?;
        let outside = PathBuf::from(outside_of(&root.to_string_lossy()));
        fs::create_dir(&outside)?;
        Ok(Sandbox {
            dir: Some(dir),
            root,
            outside,
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

    /// Where a sandbox path key points: under the root, or under
    /// `{outside}` for a key that starts `{outside}/`.
    fn path(&self, rel: &RelPath) -> PathBuf {
        match rel.as_str().strip_prefix(OUTSIDE_PREFIX) {
            Some(rest) => self.outside.join(rest),
            None => self.root.join(rel.as_str()),
        }
    }

    /// Writes `files` (the scenario's initial sandbox or an `fs: {write}`).
    pub(crate) fn write(
        &self,
        files: &BTreeMap<RelPath, FileEntry>,
        vars: &Vars,
    ) -> Result<(), Failure> {
        for (rel, entry) in files {
            let path = self.path(rel);
            let io = |e: io::Error| io_failure(rel, "write", &e);
            make_parent(&path).map_err(io)?;
            match &entry.content {
                Content::Symlink(target) => {
                    let target = vars.substitute(target).map_err(|e| placeholder(rel, &e))?;
                    remove_any(&path).map_err(io)?;
                    std::os::unix::fs::symlink(target, &path).map_err(io)?;
                }
                content => write_file(&path, &bytes(content, vars, rel)?).map_err(io)?,
            }
            if let Some(mode) = entry.mode {
                set_mode(&path, mode).map_err(io)?;
            }
        }
        Ok(())
    }

    /// Carries out one `fs` action.
    pub(crate) fn apply(&self, action: &FsAction, vars: &Vars) -> Result<(), Failure> {
        match action {
            FsAction::Write(files) => self.write(files, vars),
            FsAction::Append(files) => files.iter().try_for_each(|(rel, entry)| {
                let path = self.path(rel);
                let data = bytes(&entry.content, vars, rel)?;
                let append = || -> io::Result<()> {
                    use std::io::Write as _;
                    make_parent(&path)?;
                    fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(&path)?
                        .write_all(&data)
                };
                append().map_err(|e| io_failure(rel, "append to", &e))
            }),
            FsAction::Delete(paths) => paths.iter().try_for_each(|rel| {
                remove_any(&self.path(rel)).map_err(|e| io_failure(rel, "delete", &e))
            }),
            FsAction::Touch(times) => times.iter().try_for_each(|(rel, touch)| {
                let when = match touch.mtime {
                    None => SystemTime::now(),
                    Some(Mtime::At(secs)) => from_epoch(secs),
                    Some(Mtime::FromNow(secs)) => shift(SystemTime::now(), secs),
                };
                touch_file(&self.path(rel), when).map_err(|e| io_failure(rel, "touch", &e))
            }),
            FsAction::Chmod(modes) => modes.iter().try_for_each(|(rel, mode)| {
                set_mode(&self.path(rel), *mode).map_err(|e| io_failure(rel, "chmod", &e))
            }),
            FsAction::Symlink(links) => links.iter().try_for_each(|(rel, target)| {
                let target = vars.substitute(target).map_err(|e| placeholder(rel, &e))?;
                let path = self.path(rel);
                make_parent(&path)
                    .and_then(|()| remove_any(&path))
                    .and_then(|()| std::os::unix::fs::symlink(target, &path))
                    .map_err(|e| io_failure(rel, "symlink", &e))
            }),
            FsAction::Mkdir(paths) => paths.iter().try_for_each(|rel| {
                fs::create_dir_all(self.path(rel)).map_err(|e| io_failure(rel, "mkdir", &e))
            }),
            #[allow(unreachable_patterns)]
            // FsAction may grow; a new action must not pass silently.
            other => Err(Failure::new(
                "fs",
                format!("this runner does not know the fs action {other:?}"),
            )),
        }
    }

    /// Checks one `expect_files` entry; every way it does not hold.
    pub(crate) fn check(
        &self,
        rel: &RelPath,
        expected: &FileExpectation,
        context: Context<'_>,
    ) -> Vec<Failure> {
        let vars = context.vars;
        let what = format!("files[{}]", rel.as_str());
        let path = self.path(rel);
        let metadata = fs::symlink_metadata(&path);
        if expected.absent {
            return match metadata {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
                Err(e) => vec![Failure::new(what, format!("cannot stat it: {e}"))],
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
            Err(e) => return vec![Failure::new(what, format!("cannot stat it: {e}"))],
        };
        let mut failures = Vec::new();
        match &expected.content {
            Some(Content::Symlink(target)) => match fs::read_link(&path) {
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
            Some(content) => match (fs::read(&path), bytes(content, vars, rel)) {
                (Ok(actual), Ok(expected)) if actual == expected => {}
                (Ok(actual), Ok(expected)) => failures.push(Failure::diff(
                    &what,
                    "the bytes on disk differ",
                    show_bytes(&expected),
                    show_bytes(&actual),
                )),
                (Err(e), _) => failures.push(Failure::new(&what, format!("cannot read it: {e}"))),
                (_, Err(failure)) => failures.push(failure),
            },
            None => {}
        }
        if let Some(matcher) = &expected.matches {
            match fs::read(&path) {
                Ok(actual) => {
                    let actual = String::from_utf8_lossy(&actual);
                    match check_text(&what, matcher, &actual, context) {
                        Ok(failure) => failures.extend(failure),
                        Err(failure) => failures.push(failure),
                    }
                }
                Err(e) => failures.push(Failure::new(&what, format!("cannot read it: {e}"))),
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
        let mut contents = Vec::new();
        for rel in self.entries()? {
            let path = self.root.join(&rel);
            let file = if fs::symlink_metadata(&path)?.file_type().is_symlink() {
                SandboxFile::Symlink(fs::read_link(&path)?.to_string_lossy().into_owned())
            } else {
                match String::from_utf8(fs::read(&path)?) {
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
        let mut found = Vec::new();
        let mut pending = vec![self.root.clone()];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(&dir)? {
                let entry = entry?;
                let path = entry.path();
                if entry.file_type()?.is_dir() {
                    pending.push(path);
                } else if let Ok(rel) = path.strip_prefix(&self.root) {
                    found.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        found.sort();
        Ok(found)
    }
}

/// What a path of the sandbox holds after a run; text and link targets are
/// templates once [`ScenarioResult::sandbox_after`](super::ScenarioResult)
/// holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxFile {
    /// A file of UTF-8 text.
    Text(String),
    /// A file of other bytes.
    Bytes(Vec<u8>),
    /// A symbolic link to this target.
    Symlink(String),
}

impl SandboxFile {
    /// Text and link targets as scenario templates: the root written
    /// `{root}`, other placeholder-like text escaped.
    pub(crate) fn into_template(self, root: &str) -> SandboxFile {
        match self {
            SandboxFile::Text(text) => SandboxFile::Text(template_of(&text, root)),
            SandboxFile::Symlink(target) => SandboxFile::Symlink(template_of(&target, root)),
            bytes @ SandboxFile::Bytes(_) => bytes,
        }
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
        format!("could not {action} {}: {error}", rel.as_str()),
    )
}

/// Writes a regular file in place when one is there, so it keeps its inode
/// and a tool layer that keys its read records by inode sees *this* file
/// changed (deterministically, rather than whenever the filesystem happens
/// to reuse the number); anything else at the path is replaced.
fn write_file(path: &Path, data: &[u8]) -> io::Result<()> {
    let regular = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    if regular
        && fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .and_then(|mut f| {
                use std::io::Write as _;
                f.write_all(data)
            })
            .is_ok()
    {
        return Ok(());
    }
    // A read-only file cannot be opened for writing: the world replaces it.
    remove_any(path)?;
    fs::write(path, data)
}

fn make_parent(path: &Path) -> io::Result<()> {
    path.parent().map_or(Ok(()), fs::create_dir_all)
}

/// Removes a file, symlink or directory tree; nothing there is fine.
fn remove_any(path: &Path) -> io::Result<()> {
    let result = match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

fn set_mode(path: &Path, mode: Mode) -> io::Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode.0))
}

fn touch_file(path: &Path, when: SystemTime) -> io::Result<()> {
    make_parent(path)?;
    let file = match fs::File::options().append(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::File::create(path)?,
        // A directory: open it read-only, which can still set its times.
        Err(_) => fs::File::open(path)?,
    };
    file.set_modified(when)
}

fn from_epoch(secs: i64) -> SystemTime {
    shift(SystemTime::UNIX_EPOCH, secs)
}

fn shift(from: SystemTime, secs: i64) -> SystemTime {
    let by = Duration::from_secs(secs.unsigned_abs());
    if secs < 0 { from - by } else { from + by }
}

fn file_type(metadata: &fs::Metadata) -> &'static str {
    let t = metadata.file_type();
    if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "directory"
    } else {
        "file"
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt as _;

    use super::*;

    #[test]
    fn writing_an_existing_file_keeps_its_inode_and_a_read_only_one_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        fs::write(&path, "one\n").unwrap();
        let inode = fs::metadata(&path).unwrap().ino();
        write_file(&path, b"two\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two\n");
        assert_eq!(fs::metadata(&path).unwrap().ino(), inode);

        set_mode(&path, Mode(0o444)).unwrap();
        write_file(&path, b"three\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"three\n");
    }

    #[test]
    fn writing_over_a_symlink_replaces_the_link_not_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.txt");
        fs::write(&target, "kept\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_file(&link, b"new\n").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"kept\n");
        assert!(fs::symlink_metadata(&link).unwrap().is_file());
    }
}
