//! What a session's tools act on: the sandbox root, the settings, the read
//! cache, the armed faults, the spill directory, the file-history hook and
//! the shell state (background shells, programs allowed for the session).
//!
//! The tools see a `Workspace`, never the [`Session`](crate::session::Session)
//! around it: a tool has no business with the registry that holds it, and
//! keeping the registry out of reach keeps `tool` → `workspace` free of the
//! loop `tool` → `session` → `registry` → `tool`.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::config::SessionConfig;
use crate::faults::Faults;
use crate::read_cache::FileReadCache;
use crate::sandbox::Sandbox;
use crate::shells::Shells;
use crate::spill::SpillDir;
use crate::spill_budget::SpillLedger;

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
    /// Its background shells: declared before the spill directory, which
    /// holds their output files, so that they end before it is removed.
    shells: Shells,
    /// The session's id as its commands see it (`QWEN_CODE_SESSION_ID`).
    id: String,
    backup: Box<dyn EditBackup>,
    /// Where truncated outputs are written in full, made on the first
    /// spill; the sandbox admits it (read-only) so `read_file` can fetch
    /// them.
    spill: SpillDir,
    /// The spill files kept, against the session's spill budget.
    spills: Mutex<SpillLedger>,
    sandbox: Sandbox,
    config: SessionConfig,
    read_cache: Mutex<FileReadCache>,
    faults: Faults,
    /// Bytes of tool results persisted whole so far (Qwen's session disk
    /// budget): checked and added under one lock, so parallel calls of a
    /// batch cannot pass the budget together.
    persisted_bytes: Mutex<u64>,
}

impl Workspace {
    /// A workspace rooted at `root` (an existing directory).
    ///
    /// # Errors
    /// When `root` cannot be resolved.
    pub fn new(root: &Path, config: SessionConfig) -> io::Result<Self> {
        static OPENED: AtomicU64 = AtomicU64::new(0);
        let opened = OPENED.fetch_add(1, Ordering::Relaxed);
        Ok(Workspace {
            shells: Shells::default(),
            id: format!("toolpass-{}-{opened}", std::process::id()),
            backup: Box::new(NoBackup),
            sandbox: Sandbox::new(root)?,
            spill: SpillDir::default(),
            spills: Mutex::default(),
            config,
            read_cache: Mutex::default(),
            faults: Faults::default(),
            persisted_bytes: Mutex::default(),
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

    /// The spill files kept, locked: [`crate::output_budget::hold`] counts
    /// each it writes.
    pub fn spills(&self) -> MutexGuard<'_, SpillLedger> {
        self.spills.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Where background shells write their output and status files: in
    /// the spill directory, which `read_file` may read.
    ///
    /// # Errors
    /// When the spill directory cannot be made.
    pub fn background_dir(&self) -> io::Result<PathBuf> {
        Ok(self.spill_dir()?.join("background-shells"))
    }

    /// The shell state: background shells and allowed programs.
    #[must_use]
    pub fn shells(&self) -> &Shells {
        &self.shells
    }

    /// The session's id, as its commands see it.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Names the session as its opener knows it (the server's session id),
    /// for the commands it runs. Unique in this process by default.
    pub fn set_id(&mut self, id: impl Into<String>) {
        self.id = id.into();
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

    /// The bytes of tool results persisted so far, locked: the persist
    /// gates check their budget and count a write under this lock.
    pub fn persisted_bytes(&self) -> MutexGuard<'_, u64> {
        self.persisted_bytes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
