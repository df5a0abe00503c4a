//! The session root and the paths allowed under it.
//!
//! Beyond Qwen (which lets its file tools reach outside the workspace after
//! a permission prompt): every path is resolved against the session root the
//! way the kernel would resolve it — `..` after a symlink goes to the link
//! target's parent — and a path that ends up outside the root is refused with
//! `path_not_in_workspace` before anything is read or written. Components
//! that do not exist yet (a file about to be created) are appended as they
//! are, so creation works; a dangling symlink is followed to where it points,
//! so it cannot smuggle a write outside.
//!
//! Resolution gives the refusal its words; it is not what confines. The
//! tools open, create, rename and walk only beneath [`Sandbox::root_dir`], a
//! directory handle taken once when the session opens (cap-std:
//! `openat2(RESOLVE_BENEATH)` where the kernel has it, a checked
//! component walk elsewhere). A directory swapped for a symlink to outside
//! between resolution and use makes that open fail as an escape
//! ([`is_escape`]), never read or write the outside.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error_code::ToolErrorCode;
use crate::located::Located;

/// How many symlinks one resolution may follow before it is a loop; the
/// kernel's own limit (`MAXSYMLINKS`) is 40.
const MAX_SYMLINKS: usize = 40;

/// Why a path was refused.
#[derive(Debug)]
pub struct PathError {
    kind: PathErrorKind,
    path: String,
}

/// The kind of [`PathError`].
#[derive(Debug)]
pub enum PathErrorKind {
    /// The path resolves outside the session root.
    OutsideWorkspace,
    /// More than 40 symlinks: a loop.
    SymlinkLoop,
    /// A component could not be inspected (permission denied, ...).
    Io(io::Error),
}

impl PathError {
    /// A refusal of `path`.
    #[must_use]
    pub fn new(kind: PathErrorKind, path: &str) -> Self {
        PathError {
            kind,
            path: path.to_owned(),
        }
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> &PathErrorKind {
        &self.kind
    }

    /// The canonical error code for this refusal.
    #[must_use]
    pub fn code(&self) -> ToolErrorCode {
        ToolErrorCode::PathNotInWorkspace
    }
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            PathErrorKind::OutsideWorkspace => write!(
                f,
                "Path {} resolves outside the workspace; only paths inside the session root are allowed.",
                self.path
            ),
            PathErrorKind::SymlinkLoop => write!(
                f,
                "Path {} could not be resolved: too many levels of symbolic links.",
                self.path
            ),
            PathErrorKind::Io(e) => write!(f, "Path {} could not be resolved: {e}.", self.path),
        }
    }
}

impl std::error::Error for PathError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PathErrorKind::Io(e) => Some(e),
            PathErrorKind::OutsideWorkspace | PathErrorKind::SymlinkLoop => None,
        }
    }
}

/// A session root, and the session's own scratch directories.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
    /// The root, opened once: everything the tools touch is reached through
    /// it, so a rename of the root's ancestors or a symlink swapped in below
    /// it cannot redirect them.
    root_dir: Arc<Dir>,
    /// Directories outside the root the session may also read (its spill
    /// directory, made on the first spill), canonical, each with its own
    /// handle; shared by the clones of one sandbox.
    admitted: Arc<Mutex<Vec<Area>>>,
}

/// An admitted directory and its handle.
type Area = (PathBuf, Arc<Dir>);

/// Whether `error` is cap-std's refusal of a path that led outside the
/// directory handle it was resolved beneath: an absolute path, a `..`
/// above it, or a symlink (perhaps swapped in a moment ago) pointing out.
/// cap-std reports it as `PermissionDenied` with no OS error number, which
/// no real `EACCES` has.
#[must_use]
pub fn is_escape(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::PermissionDenied && error.raw_os_error().is_none()
}

impl Sandbox {
    /// A sandbox at `root`, which must be an existing directory.
    ///
    /// # Errors
    /// When `root` cannot be canonicalized.
    pub fn new(root: &Path) -> io::Result<Self> {
        let root = fs::canonicalize(root)?;
        let root_dir = Arc::new(Dir::open_ambient_dir(&root, ambient_authority())?);
        Ok(Sandbox {
            root,
            root_dir,
            admitted: Arc::default(),
        })
    }

    /// Also admits paths under `dir` (an existing directory) for reading:
    /// [`Located::is_writable`] is false there.
    ///
    /// # Errors
    /// When `dir` cannot be canonicalized or opened.
    pub fn admitting(self, dir: &Path) -> io::Result<Self> {
        self.admit(dir)?;
        Ok(self)
    }

    /// [`Sandbox::admitting`] on a sandbox in use.
    ///
    /// # Errors
    /// When `dir` cannot be canonicalized or opened.
    pub fn admit(&self, dir: &Path) -> io::Result<()> {
        let dir = fs::canonicalize(dir)?;
        let handle = Arc::new(Dir::open_ambient_dir(&dir, ambient_authority())?);
        self.areas().push((dir, handle));
        Ok(())
    }

    fn areas(&self) -> MutexGuard<'_, Vec<Area>> {
        // A panic while pushing leaves at worst one area missing.
        self.admitted.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The canonical root.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The handle of the root, beneath which every file operation happens.
    #[must_use]
    pub fn root_dir(&self) -> &Dir {
        &self.root_dir
    }

    /// Resolves `path` (absolute, or relative to the root) to the real path
    /// it names, refusing anything outside the root.
    ///
    /// # Errors
    /// [`PathErrorKind::OutsideWorkspace`], [`PathErrorKind::SymlinkLoop`] or
    /// an IO error while inspecting a component.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        self.locate(path).map(|located| located.path().to_owned())
    }

    /// `lstat` of `path` beneath the root's handle: the directories on the
    /// way are followed (inside only), the last component is not.
    ///
    /// # Errors
    /// The refusal of the directory holding it, or the OS error.
    pub fn symlink_metadata(&self, path: &str) -> io::Result<cap_std::fs::Metadata> {
        let path = Path::new(path);
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return self.root_dir.metadata(".");
        };
        // The root itself: its parent is outside, but the root is not.
        if self.resolve(&path.to_string_lossy()).ok().as_deref() == Some(self.root()) {
            return self.root_dir.metadata(".");
        }
        let parent = self
            .locate(&parent.to_string_lossy())
            .map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e.to_string()))?;
        parent.base().symlink_metadata(parent.rel().join(name))
    }

    /// [`Sandbox::resolve`], and the handle to reach the result beneath.
    ///
    /// # Errors
    /// As [`Sandbox::resolve`].
    pub fn locate(&self, path: &str) -> Result<Located, PathError> {
        let resolved =
            resolve_physically(&self.root.join(path)).map_err(|kind| PathError::new(kind, path))?;
        // Admitted directories first: one may lie inside the root (a
        // TMPDIR under the workspace), and it stays read-only there too.
        let admitted = self.areas().clone();
        let areas = admitted
            .iter()
            .map(|(dir, handle)| (dir, handle, false))
            .chain(std::iter::once((&self.root, &self.root_dir, true)));
        for (dir, handle, writable) in areas {
            if let Ok(rel) = resolved.strip_prefix(dir) {
                let rel = if rel.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    rel.to_owned()
                };
                return Ok(Located::new(resolved, Arc::clone(handle), rel, writable));
            }
        }
        Err(PathError::new(PathErrorKind::OutsideWorkspace, path))
    }
}

/// `realpath` that tolerates missing components: existing symlinks are
/// followed (a dangling one too), missing components are kept as written.
fn resolve_physically(path: &Path) -> Result<PathBuf, PathErrorKind> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    let mut resolved = PathBuf::from("/");
    let mut links = 0;
    push_front(&mut pending, path, &mut resolved);
    while let Some(name) = pending.pop_front() {
        if name == ".." {
            resolved.pop();
            continue;
        }
        let candidate = resolved.join(&name);
        match fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(PathErrorKind::SymlinkLoop);
                }
                let target = fs::read_link(&candidate).map_err(PathErrorKind::Io)?;
                push_front(&mut pending, &target, &mut resolved);
            }
            Err(e) if crate::errno::is(&e, rustix::io::Errno::LOOP) => {
                return Err(PathErrorKind::SymlinkLoop);
            }
            // Missing, not a directory, no permission: nothing there can be
            // a symlink the kernel would follow, so the name is kept as
            // written and the tool meets the real error when it opens it.
            Ok(_) | Err(_) => resolved = candidate,
        }
    }
    Ok(resolved)
}

/// Queues the components of `path` before what is pending; an absolute path
/// restarts resolution at `/`.
fn push_front(pending: &mut VecDeque<OsString>, path: &Path, resolved: &mut PathBuf) {
    let mut names = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => {
                *resolved = PathBuf::from("/");
                names.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => names.push(OsString::from("..")),
            Component::Normal(name) => names.push(name.to_owned()),
        }
    }
    for name in names.into_iter().rev() {
        pending.push_front(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(dir.path()).unwrap();
        (dir, sandbox)
    }

    fn refused(sandbox: &Sandbox, path: &str) -> bool {
        matches!(
            sandbox.resolve(path).map_err(|e| e.kind),
            Err(PathErrorKind::OutsideWorkspace)
        )
    }

    #[test]
    fn inside_paths_resolve_and_missing_tails_are_kept() {
        let (_dir, sb) = sandbox();
        fs::create_dir(sb.root().join("src")).unwrap();
        assert_eq!(
            sb.resolve("src/new/file.txt").unwrap(),
            sb.root().join("src/new/file.txt")
        );
        let absolute = sb.root().join("src/./a.rs");
        assert_eq!(
            sb.resolve(absolute.to_str().unwrap()).unwrap(),
            sb.root().join("src/a.rs")
        );
        assert_eq!(sb.resolve("src/../b").unwrap(), sb.root().join("b"));
    }

    #[test]
    fn escapes_are_refused() {
        let (_dir, sb) = sandbox();
        assert!(refused(&sb, "../x"));
        assert!(refused(&sb, "/etc/passwd"));
        assert!(refused(&sb, "a/../../x"));
    }

    #[test]
    fn symlinks_are_followed_to_where_they_lead() {
        let (_dir, sb) = sandbox();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), sb.root().join("out")).unwrap();
        std::os::unix::fs::symlink("inside-target", sb.root().join("in")).unwrap();
        assert!(refused(&sb, "out/secret"));
        // A dangling link inside that points inside is fine; its target is
        // what gets written.
        assert_eq!(sb.resolve("in").unwrap(), sb.root().join("inside-target"));
        // A dangling link that points outside is refused.
        std::os::unix::fs::symlink("/nonexistent-toolpass-target", sb.root().join("dangling"))
            .unwrap();
        assert!(refused(&sb, "dangling"));
    }

    #[test]
    fn the_root_handle_refuses_what_leads_out_as_an_escape() {
        let (_dir, sb) = sandbox();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), sb.root().join("abs")).unwrap();
        std::os::unix::fs::symlink("../..", sb.root().join("rel")).unwrap();
        for path in ["abs/secret", "rel", "../x", "/etc/hostname"] {
            let error = sb.root_dir().open(path).unwrap_err();
            assert!(is_escape(&error), "{path}: {error:?}");
        }
        let missing = sb.root_dir().open("missing").unwrap_err();
        assert!(!is_escape(&missing));
        assert_eq!(sb.locate("a/b").unwrap().rel(), Path::new("a/b"));
        assert_eq!(sb.locate("").unwrap().rel(), Path::new("."));
        assert!(sb.locate(&outside.path().to_string_lossy()).is_err());
    }

    #[test]
    fn symlink_loops_are_an_error_not_a_hang() {
        let (_dir, sb) = sandbox();
        std::os::unix::fs::symlink("b", sb.root().join("a")).unwrap();
        std::os::unix::fs::symlink("a", sb.root().join("b")).unwrap();
        assert!(matches!(
            sb.resolve("a").map_err(|e| e.kind),
            Err(PathErrorKind::SymlinkLoop)
        ));
    }
}
