//! What a session's tools act on: the sandbox root, the settings, the read
//! cache, the armed faults, the spill directory and the file-history hook.
//!
//! The tools see a `Workspace`, never the [`Session`](crate::session::Session)
//! around it: a tool has no business with the registry that holds it, and
//! keeping the registry out of reach keeps `tool` → `workspace` free of the
//! loop `tool` → `session` → `registry` → `tool`.

use std::io;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::config::SessionConfig;
use crate::faults::Faults;
use crate::read_cache::FileReadCache;
use crate::sandbox::Sandbox;
use crate::spill::SpillDir;

/// Qwen's file-history backup (`FileHistoryService.trackEdit`): a copy of a
/// file taken before a tool overwrites it.
///
/// The tools call it *before* their last freshness check, as Qwen does
/// (`edit.ts`): a backup can take hundreds of milliseconds on a large file,
/// and taken after the check it would stretch "check, then write" from two
/// adjacent syscalls into "check, long copy, write". The reference keeps no
/// history; the hook is the seam where one plugs in, and tests use it to pin
/// the order.
pub trait EditBackup: Send + Sync {
    /// Backs up `path` before it is written. Best effort: a failure must
    /// not stop the write.
    fn track_edit(&self, path: &Path);
}

/// The default: no file history.
struct NoBackup;

impl EditBackup for NoBackup {
    fn track_edit(&self, _path: &Path) {}
}

/// The state a session's tools share.
pub struct Workspace {
    backup: Box<dyn EditBackup>,
    /// Where truncated outputs are written in full, made on the first
    /// spill; the sandbox admits it (read-only) so `read_file` can fetch
    /// them.
    spill: SpillDir,
    sandbox: Sandbox,
    config: SessionConfig,
    read_cache: Mutex<FileReadCache>,
    faults: Faults,
}

impl Workspace {
    /// A workspace rooted at `root` (an existing directory).
    ///
    /// # Errors
    /// When `root` cannot be resolved.
    pub fn new(root: &Path, config: SessionConfig) -> io::Result<Self> {
        Ok(Workspace {
            backup: Box::new(NoBackup),
            sandbox: Sandbox::new(root)?,
            spill: SpillDir::default(),
            config,
            read_cache: Mutex::default(),
            faults: Faults::default(),
        })
    }

    /// The session root.
    #[must_use]
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The file-history hook the writing tools call before their last check.
    #[must_use]
    pub fn backup(&self) -> &dyn EditBackup {
        self.backup.as_ref()
    }

    /// Installs a file-history hook.
    pub fn set_backup(&mut self, backup: Box<dyn EditBackup>) {
        self.backup = backup;
    }

    /// The directory spill files are written to, made (in the system's
    /// temporary directory) and admitted to the sandbox on the first call.
    ///
    /// # Errors
    /// When it cannot be made.
    pub fn spill_dir(&self) -> io::Result<&Path> {
        self.spill
            .get(&std::env::temp_dir(), |dir| self.sandbox.admit(dir))
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The read cache, locked.
    pub fn read_cache(&self) -> MutexGuard<'_, FileReadCache> {
        // A panic while holding the lock cannot leave the cache half-updated
        // in a way that matters more than losing the session would.
        self.read_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The armed faults.
    #[must_use]
    pub fn faults(&self) -> &Faults {
        &self.faults
    }
}
