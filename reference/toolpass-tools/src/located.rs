//! A path the sandbox admitted, and the file operations on it, each carried
//! out beneath a directory handle rather than by name.
//!
//! [`Sandbox::locate`](crate::sandbox::Sandbox::locate) checks a path once
//! and words the refusal; a [`Located`] is what the tools then use. Its
//! operations resolve the relative path again, beneath the handle of the
//! root (or of an admitted directory) with cap-std, so a directory swapped
//! for a symlink to outside after the check makes the operation fail as an
//! escape ([`is_escape`](crate::sandbox::is_escape)) instead of reaching
//! the outside. Symlinks that stay beneath the handle keep working.

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use rustix::fs::OFlags;

/// A path inside the sandbox: its real absolute path (what the model is
/// shown, what the read cache keys on) and how to reach it beneath a handle.
#[derive(Debug, Clone)]
pub struct Located {
    path: PathBuf,
    base: Arc<Dir>,
    /// Relative to `base`; `.` for the base itself.
    rel: PathBuf,
    writable: bool,
}

/// The directory holding a [`Located`] path, opened beneath the same
/// handle, and the final name in it: what creating, linking and renaming
/// work relative to.
#[derive(Debug)]
pub struct Parent {
    /// The directory.
    pub dir: Dir,
    /// The file's name in it.
    pub name: OsString,
}

impl Located {
    pub(crate) fn new(path: PathBuf, base: Arc<Dir>, rel: PathBuf, writable: bool) -> Self {
        Located {
            path,
            base,
            rel,
            writable,
        }
    }

    /// The real absolute path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path relative to its handle (`.` for the handle's directory).
    #[must_use]
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// The handle the path is reached beneath.
    #[must_use]
    pub fn base(&self) -> &Dir {
        &self.base
    }

    /// Whether tools may write here: the session root is writable, the
    /// session's spill directory is read-only to them.
    #[must_use]
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// `stat` following symlinks beneath the handle. It opens the path with
    /// `O_PATH`, which needs no read permission and does not open a FIFO or a
    /// device, then asks the descriptor.
    ///
    /// # Errors
    /// The OS error, or an escape.
    pub fn stat(&self) -> io::Result<Metadata> {
        let mut options = OpenOptions::new();
        options.read(true).custom_flags(flags(OFlags::PATH));
        self.base
            .open_with(&self.rel, &options)?
            .into_std()
            .metadata()
    }

    /// Opens the file for reading beneath the handle, without waiting for a
    /// writer if it is a FIFO and without making a terminal the controlling
    /// one; callers check the descriptor's own metadata for what it is.
    ///
    /// # Errors
    /// The OS error, or an escape.
    pub fn open_read(&self) -> io::Result<File> {
        let mut options = OpenOptions::new();
        options
            .read(true)
            .custom_flags(flags(OFlags::NONBLOCK | OFlags::NOCTTY));
        Ok(self.base.open_with(&self.rel, &options)?.into_std())
    }

    /// The parent directory beneath the handle, made first (with its own
    /// parents) when `create` is set, and the final name.
    ///
    /// # Errors
    /// The OS error, or an escape; `InvalidInput` for the handle's own
    /// directory, which has no name to write.
    pub fn parent(&self, create: bool) -> io::Result<Parent> {
        let name = self
            .rel
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
            .to_owned();
        let parent = match self.rel.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if create {
            self.base.create_dir_all(parent)?;
        }
        Ok(Parent {
            dir: self.base.open_dir(parent)?,
            name,
        })
    }
}

/// `flags` as the `i32` `OpenOptionsExt::custom_flags` takes; the values
/// come from rustix, never written by hand.
pub(crate) fn flags(flags: OFlags) -> i32 {
    // O_* flags are small positive bits; the cast cannot wrap.
    #[allow(clippy::cast_possible_wrap)]
    let bits = flags.bits() as i32;
    bits
}
