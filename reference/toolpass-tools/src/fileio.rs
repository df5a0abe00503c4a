//! File IO with the fault points wired in: stat, and the atomic write.
//!
//! Beyond Qwen (seed §13 admits the gap: "the last stat and writeTextFile
//! still race"): a write goes to a temporary file in the same directory, is
//! fsynced, gets the original's permissions, and replaces the target by
//! `rename` only after the target's fingerprint is compared once more. A
//! crash at any point leaves either the old file or the new one, never a mix;
//! a writer that slipped in after the last freshness check is detected and
//! its bytes are kept.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::faults::{CONCURRENT_WRITE, FaultPoint, Faults};

/// What identifies a file's content for freshness checks: its inode and
/// Qwen's mtime + size fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Size in bytes.
    pub size: u64,
}

impl Fingerprint {
    /// The fingerprint of `meta`.
    #[must_use]
    pub fn of(meta: &Metadata) -> Self {
        Fingerprint {
            dev: meta.dev(),
            ino: meta.ino(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            size: meta.size(),
        }
    }
}

/// `stat(path)` (following symlinks), failing with `EACCES` when the
/// `fs.stat` fault is armed.
///
/// # Errors
/// The stat error, real or injected.
pub fn stat(faults: &Faults, path: &Path) -> io::Result<Metadata> {
    if faults.fire(FaultPoint::FsStat) {
        return Err(io::Error::from_raw_os_error(13));
    }
    fs::metadata(path)
}

/// The Node-style code of an IO error (`ENOENT`, `EACCES`, ...), which is
/// what Qwen's messages quote.
#[must_use]
pub fn errno_name(error: &io::Error) -> &'static str {
    match error.raw_os_error() {
        Some(1) => "EPERM",
        Some(2) => "ENOENT",
        Some(5) => "EIO",
        Some(13) => "EACCES",
        Some(16) => "EBUSY",
        Some(20) => "ENOTDIR",
        Some(21) => "EISDIR",
        Some(28) => "ENOSPC",
        Some(30) => "EROFS",
        Some(40) => "ELOOP",
        _ => "unknown error",
    }
}

/// What must still hold of the target right before the commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// The file must not exist (creating).
    Absent,
    /// The file must still have this fingerprint (overwriting).
    Unchanged(Fingerprint),
}

/// Why an atomic write did not happen. The target is untouched in every case.
#[derive(Debug)]
pub enum WriteError {
    /// The target changed after the last check (or appeared, for a create).
    Changed,
    /// An IO error; the temporary file was removed.
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Writes `bytes` to `path` atomically if `precondition` still holds at the
/// commit, and returns the new file's metadata.
///
/// # Errors
/// [`WriteError::Changed`] when another writer got there first; an IO error
/// otherwise. Either way `path` keeps the bytes it had.
pub fn write_atomic(
    faults: &Faults,
    path: &Path,
    bytes: &[u8],
    precondition: Precondition,
) -> Result<Metadata, WriteError> {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let mode = match precondition {
        Precondition::Unchanged(_) => fs::metadata(path).ok().map(|m| m.permissions().mode()),
        Precondition::Absent => None,
    };
    let temp = TempFile::create(dir, path, mode)?;
    temp.file().write_all(bytes)?;
    temp.file().sync_all()?;

    if faults.fire(FaultPoint::WriteBeforeCommit) {
        simulate_other_writer(path)?;
    }
    match precondition {
        Precondition::Unchanged(expected) => {
            let now = fs::metadata(path).map(|m| Fingerprint::of(&m));
            if now.ok() != Some(expected) {
                return Err(WriteError::Changed);
            }
            fs::rename(temp.path(), path)?;
        }
        Precondition::Absent => {
            // A hard link fails if the name exists: create-without-replace,
            // atomically, where rename would clobber a file that appeared.
            match fs::hard_link(temp.path(), path) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(WriteError::Changed);
                }
                other => other?,
            }
        }
    }
    temp.forget_if_renamed();
    // The rename is durable only once the directory entry is.
    File::open(dir)?.sync_all()?;
    Ok(fs::metadata(path)?)
}

/// The other writer of `write.before_commit`: appends [`CONCURRENT_WRITE`],
/// or creates the file with it.
fn simulate_other_writer(path: &Path) -> io::Result<()> {
    let mut file = OpenOptions::new().append(true).create(true).open(path)?;
    file.write_all(CONCURRENT_WRITE.as_bytes())?;
    file.sync_all()
}

/// A temporary sibling of the target, removed on drop unless it became the
/// target.
struct TempFile {
    path: PathBuf,
    file: File,
}

impl TempFile {
    fn create(dir: &Path, target: &Path, mode: Option<u32>) -> io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            ".{name}.toolpass-{}-{unique}.tmp",
            std::process::id()
        ));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        if let Some(mode) = mode {
            options.mode(mode & 0o7777);
        }
        let file = options.open(&path)?;
        if let Some(mode) = mode {
            // The umask narrowed the mode given to open; the original's wins.
            file.set_permissions(fs::Permissions::from_mode(mode & 0o7777))?;
        }
        Ok(TempFile { path, file })
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn file(&self) -> &File {
        &self.file
    }

    /// After a rename the temporary name is gone; after a hard link it must
    /// still be removed. Either way, removing it now is right and the drop
    /// has nothing left to do.
    fn forget_if_renamed(&self) {
        let _ = fs::remove_file(&self.path);
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(content: &str) -> (tempfile::TempDir, PathBuf, Fingerprint) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, content).unwrap();
        let fp = Fingerprint::of(&fs::metadata(&path).unwrap());
        (dir, path, fp)
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn overwrites_when_unchanged_and_keeps_the_mode() {
        let (dir, path, fp) = setup("old\n");
        // chmod changes ctime, not the mtime + size fingerprint.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(
            &Faults::default(),
            &path,
            b"new\n",
            Precondition::Unchanged(fp),
        )
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_writer_between_check_and_commit_wins_and_keeps_its_bytes() {
        let (dir, path, fp) = setup("old\n");
        let faults = Faults::default();
        faults.arm(FaultPoint::WriteBeforeCommit, 1);
        let err = write_atomic(&faults, &path, b"new\n", Precondition::Unchanged(fp)).unwrap_err();
        assert!(matches!(err, WriteError::Changed));
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("old\n{CONCURRENT_WRITE}")
        );
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn create_refuses_a_file_that_appeared() {
        let (dir, path, _) = setup("someone else's\n");
        let err =
            write_atomic(&Faults::default(), &path, b"mine\n", Precondition::Absent).unwrap_err();
        assert!(matches!(err, WriteError::Changed));
        assert_eq!(fs::read_to_string(&path).unwrap(), "someone else's\n");
        let fresh = dir.path().join("new.txt");
        write_atomic(&Faults::default(), &fresh, b"mine\n", Precondition::Absent).unwrap();
        assert_eq!(fs::read_to_string(&fresh).unwrap(), "mine\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn the_stat_fault_fails_with_eacces_once() {
        let (_dir, path, _) = setup("x");
        let faults = Faults::default();
        faults.arm(FaultPoint::FsStat, 1);
        let err = stat(&faults, &path).unwrap_err();
        assert_eq!(errno_name(&err), "EACCES");
        assert!(stat(&faults, &path).is_ok());
    }
}
