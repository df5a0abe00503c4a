//! One session: a sandbox root, its configuration, the read cache, the armed
//! faults and the registered tools. A server may hold many.

use std::io;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::faults::Faults;
use crate::read_cache::FileReadCache;
use crate::registry::Registry;
use crate::sandbox::Sandbox;
use crate::spill::SpillDir;

/// Qwen's `DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD`.
pub const DEFAULT_TRUNCATE_THRESHOLD: usize = 25_000;
/// Qwen's `DEFAULT_TRUNCATE_TOOL_OUTPUT_LINES`.
pub const DEFAULT_TRUNCATE_LINES: usize = 1_000;

/// The largest file `edit` and `write_file` read or write whole: 64 MiB.
/// Beyond Qwen (which has no cap and holds a file several times over while
/// editing it), so one call cannot exhaust the server's memory.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

/// Per-session settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    /// Characters above which a result is truncated.
    pub truncate_threshold: usize,
    /// Lines above which a result is truncated.
    pub truncate_lines: usize,
    /// Tools that must not be registered.
    pub disabled_tools: Vec<String>,
    /// The largest file `edit` and `write_file` read or write
    /// (`file_too_large` above it).
    pub max_file_bytes: u64,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            truncate_threshold: DEFAULT_TRUNCATE_THRESHOLD,
            truncate_lines: DEFAULT_TRUNCATE_LINES,
            disabled_tools: Vec::new(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

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

/// A session.
pub struct Session {
    backup: Box<dyn EditBackup>,
    /// Where truncated outputs are written in full, made on the first
    /// spill; the sandbox admits it (read-only) so `read_file` can fetch
    /// them.
    spill: SpillDir,
    sandbox: Sandbox,
    config: SessionConfig,
    read_cache: Mutex<FileReadCache>,
    faults: Faults,
    registry: Registry,
}

impl Session {
    /// A session rooted at `root` (an existing directory) with the standard
    /// tools, minus the disabled ones.
    ///
    /// # Errors
    /// When `root` cannot be resolved.
    pub fn new(root: &Path, config: SessionConfig) -> io::Result<Self> {
        let mut registry = Registry::new(config.disabled_tools.iter().cloned());
        for tool in crate::tools::standard() {
            registry.register(tool);
        }
        Ok(Session {
            backup: Box::new(NoBackup),
            sandbox: Sandbox::new(root)?,
            spill: SpillDir::default(),
            config,
            read_cache: Mutex::default(),
            faults: Faults::default(),
            registry,
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

    /// The tools.
    #[must_use]
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The tools, for revealing deferred ones.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }
}
