//! The session's spill directory, where outputs over budget are written in
//! full: made on the first spill (a server that opens thousands of sessions
//! and spills nothing makes no directory), mode 0700, outside the root so
//! spill files never show up in the model's workspace, and removed with the
//! session.
//!
//! A session killed with SIGKILL cannot remove its directory. Each session
//! therefore holds a shared `flock` on its directory while it lives, and
//! making a new directory removes the `toolpass-spill-*` directories of the
//! same user that nobody holds any more. A lock, unlike a process id,
//! survives PID reuse and PID namespaces; directories younger than a minute
//! are left alone, since their session may not have locked them yet.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use rustix::fs::{FlockOperation, OFlags, flock};

use crate::located::flags;

/// The name every spill directory starts with.
pub const PREFIX: &str = "toolpass-spill-";

/// How old an unlocked spill directory must be before it counts as stale.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// A spill directory, made on first use.
#[derive(Debug, Default)]
pub struct SpillDir {
    made: OnceLock<Spill>,
}

#[derive(Debug)]
struct Spill {
    dir: tempfile::TempDir,
    /// Held while the session lives; dropped before the directory is.
    _lock: File,
}

impl SpillDir {
    /// The directory, made under `base` on the first call (the stale ones
    /// there removed first); `made` runs once, with the new path.
    ///
    /// # Errors
    /// When the directory cannot be made or locked, or `made` fails.
    pub fn get(
        &self,
        base: &Path,
        made: impl FnOnce(&Path) -> io::Result<()>,
    ) -> io::Result<&Path> {
        if let Some(spill) = self.made.get() {
            return Ok(spill.dir.path());
        }
        remove_stale(base);
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .permissions(fs::Permissions::from_mode(0o700))
            .tempdir_in(base)?;
        let lock = open_dir(dir.path())?;
        flock(&lock, FlockOperation::LockShared)?;
        made(dir.path())?;
        // Two threads may race here; the loser's directory is dropped
        // (removed) at once and both use the winner's.
        let spill = self.made.get_or_init(|| Spill { dir, _lock: lock });
        Ok(spill.dir.path())
    }

    /// The directory, if a spill made it.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        self.made.get().map(|spill| spill.dir.path())
    }
}

/// Removes the spill directories under `base` that belong to this user,
/// are older than [`STALE_AFTER`] and that no session holds. Best effort:
/// what cannot be inspected or removed is left.
pub fn remove_stale(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    let uid = rustix::process::geteuid().as_raw();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        // Opened without following a symlink, then judged by what was
        // opened, so a link planted under the name is never followed.
        let Ok(dir) = open_dir(&path) else { continue };
        let Ok(meta) = dir.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if meta.uid() != uid || !old {
            continue;
        }
        if flock(&dir, FlockOperation::NonBlockingLockExclusive).is_ok() {
            tracing::debug!("removing the stale spill directory {}", path.display());
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// A real descriptor of the directory `path` (a symlink there is refused),
/// which `flock` accepts.
fn open_dir(path: &Path) -> io::Result<File> {
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags(OFlags::DIRECTORY | OFlags::NOFOLLOW))
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fs::{Timespec, Timestamps, UTIME_OMIT, utimensat};

    /// Sets `path`'s mtime an hour back.
    fn age(path: &Path) {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap();
        let hour_ago = Timespec {
            tv_sec: i64::try_from(now.as_secs()).unwrap() - 3600,
            tv_nsec: 0,
        };
        let times = Timestamps {
            last_access: Timespec {
                tv_sec: 0,
                tv_nsec: UTIME_OMIT,
            },
            last_modification: hour_ago,
        };
        utimensat(rustix::fs::CWD, path, &times, rustix::fs::AtFlags::empty()).unwrap();
    }

    #[test]
    fn made_on_first_use_private_and_removed_with_the_session() {
        let base = tempfile::tempdir().unwrap();
        let spill = SpillDir::default();
        assert!(spill.path().is_none());
        assert_eq!(fs::read_dir(base.path()).unwrap().count(), 0);
        let path = spill.get(base.path(), |_| Ok(())).unwrap().to_owned();
        assert_eq!(spill.get(base.path(), |_| Ok(())).unwrap(), path);
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o700);
        drop(spill);
        assert!(!path.exists());
    }

    #[test]
    fn stale_directories_are_removed_and_held_or_young_ones_kept() {
        let base = tempfile::tempdir().unwrap();
        let stale = base.path().join(format!("{PREFIX}stale"));
        let young = base.path().join(format!("{PREFIX}young"));
        let unrelated = base.path().join("other-stale");
        for dir in [&stale, &young, &unrelated] {
            fs::create_dir(dir).unwrap();
            fs::write(dir.join("x.output"), "x").unwrap();
        }
        age(&stale);
        age(&unrelated);
        let held = SpillDir::default();
        let held_path = held.get(base.path(), |_| Ok(())).unwrap().to_owned();
        age(&held_path);
        assert!(!stale.exists(), "the stale directory was removed");
        remove_stale(base.path());
        assert!(held_path.exists(), "a held directory stays");
        assert!(young.exists(), "a young directory stays");
        assert!(unrelated.exists(), "only spill directories are touched");
    }
}
