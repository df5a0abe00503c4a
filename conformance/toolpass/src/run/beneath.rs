//! File operations beneath a directory handle: what the runner does to a
//! scenario's sandbox, confined by cap-std to the scenario's private
//! directory.
//!
//! A scenario file is untrusted input (anyone may run a directory of them
//! from a pull request), and validation is only the first guard: every path
//! here is resolved beneath the handle (`openat2(RESOLVE_BENEATH)` where the
//! kernel has it, a checked component walk elsewhere), so an absolute
//! symlink, a `..` above the handle or a relative link that climbs out is
//! refused as an escape ([`is_escape`]) instead of followed. Links are
//! created as written and never followed to create, replace or delete
//! something; a link that stays beneath the handle is followed where the
//! operation reads or changes a file's content, as the scenario means.

use std::io::{self, Write as _};
use std::path::Path;
use std::time::SystemTime;

use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _};
use cap_std::fs::{Dir, OpenOptions, Permissions, PermissionsExt as _};
use rustix::fs::{AtFlags, Mode as RawMode};
use rustix::io::Errno;

/// Whether `error` is cap-std's refusal of a path that leads outside the
/// handle it is resolved beneath: an absolute path, a `..` above it, or a
/// symlink pointing out. cap-std reports it as `PermissionDenied` with no
/// OS error number, which no real `EACCES` has.
pub(crate) fn is_escape(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::PermissionDenied && error.raw_os_error().is_none()
}

/// What an IO error says in a failure: an escape in words that name it,
/// anything else as the OS put it.
pub(crate) fn describe(error: &io::Error) -> String {
    if is_escape(error) {
        "it leads outside the scenario's private directory (an absolute symlink, or a link or \
         `..` that climbs out), which the runner does not follow"
            .to_owned()
    } else {
        error.to_string()
    }
}

/// Creates `path`'s parent directories beneath `dir`.
pub(crate) fn make_parent(dir: &Dir, path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => create_dir_all(dir, parent),
        _ => Ok(()),
    }
}

/// Creates a directory and its parents beneath `dir`.
pub(crate) fn create_dir_all(dir: &Dir, path: &Path) -> io::Result<()> {
    // A component that is a link leading out makes cap-std's mkdir fail
    // with "exists"; following it beneath the handle says why.
    dir.create_dir_all(path)
        .map_err(|error| match dir.metadata(path) {
            Err(escape) if is_escape(&escape) => escape,
            _ => error,
        })
}

/// Writes a regular file in place when one is there, so it keeps its inode
/// and a tool layer that keys its read records by inode sees *this* file
/// changed (deterministically, rather than whenever the filesystem happens
/// to reuse the number); anything else at the path (a symlink included:
/// the link is replaced, its target left alone) is replaced.
pub(crate) fn write_file(dir: &Dir, path: &Path, data: &[u8]) -> io::Result<()> {
    let regular = dir.symlink_metadata(path).is_ok_and(|m| m.is_file());
    let mut in_place = OpenOptions::new();
    in_place
        .write(true)
        .truncate(true)
        .follow(FollowSymlinks::No);
    if regular
        && dir
            .open_with(path, &in_place)
            .and_then(|mut f| f.write_all(data))
            .is_ok()
    {
        return Ok(());
    }
    // A read-only file cannot be opened for writing: the world replaces it.
    remove_any(dir, path)?;
    let mut new = OpenOptions::new();
    new.write(true).create_new(true).follow(FollowSymlinks::No);
    dir.open_with(path, &new)?.write_all(data)
}

/// Appends `data` to a file, created when missing.
pub(crate) fn append(dir: &Dir, path: &Path, data: &[u8]) -> io::Result<()> {
    make_parent(dir, path)?;
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    dir.open_with(path, &options)?.write_all(data)
}

/// Creates a symlink to `target` as written (the target is not resolved,
/// so an absolute one such as `{outside}` is fine), replacing what is there.
pub(crate) fn symlink(dir: &Dir, target: &str, path: &Path) -> io::Result<()> {
    make_parent(dir, path)?;
    remove_any(dir, path)?;
    dir.symlink_contents(target, path)
}

/// Removes a file, symlink or directory tree without following a link;
/// nothing there is fine.
pub(crate) fn remove_any(dir: &Dir, path: &Path) -> io::Result<()> {
    let result = match dir.symlink_metadata(path) {
        Ok(m) if m.is_dir() => dir.remove_dir_all(path),
        Ok(_) => dir.remove_file_or_symlink(path),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Sets a file's permission bits (through a link that stays beneath `dir`).
pub(crate) fn set_mode(dir: &Dir, path: &Path, mode: u32) -> io::Result<()> {
    match dir.set_permissions(path, Permissions::from_mode(mode)) {
        // cap-std changes the mode through a handle it must open for reading
        // or writing, and answers ENOTSUP for a file that allows us neither
        // (mode 000, unless we are root).
        Err(e) if Errno::from_io_error(&e) == Some(Errno::NOTSUP) => chmod_by_name(dir, path, mode),
        other => other,
    }
}

/// Changes a mode by name beneath the handle of `path`'s parent, once the
/// name is known to be no symlink: `chmodat` would follow one out.
fn chmod_by_name(dir: &Dir, path: &Path, mode: u32) -> io::Result<()> {
    let (parent, name) = split(dir, path)?;
    if parent.symlink_metadata(name)?.is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a symlink to a file whose mode cannot be read",
        ));
    }
    Ok(rustix::fs::chmodat(
        &parent,
        name,
        RawMode::from_raw_mode(mode),
        AtFlags::empty(),
    )?)
}

/// `path`'s parent opened beneath `dir`, and its last component.
fn split<'p>(dir: &Dir, path: &'p Path) -> io::Result<(Dir, &'p Path)> {
    let name = path
        .file_name()
        .map(Path::new)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => dir.open_dir(parent)?,
        _ => dir.try_clone()?,
    };
    Ok((parent, name))
}

/// Sets a file's or directory's modification time; a missing file is
/// created.
pub(crate) fn touch(dir: &Dir, path: &Path, when: SystemTime) -> io::Result<()> {
    make_parent(dir, path)?;
    let mut options = OpenOptions::new();
    options.append(true);
    let file = match dir.open_with(path, &options) {
        Ok(file) => file.into_std(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            options.create(true);
            dir.open_with(path, &options)?.into_std()
        }
        Err(e) if is_escape(&e) => return Err(e),
        // A directory: open it read-only, which can still set its times.
        Err(_) => dir.open_dir(path)?.into_std_file(),
    };
    file.set_modified(when)
}

/// Every file and symlink under `top` (a directory beneath `dir`), as
/// paths relative to `top` with `/`, sorted. Directory symlinks are listed,
/// not walked into.
pub(crate) fn entries(dir: &Dir, top: &Path) -> io::Result<Vec<String>> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.open_dir_nofollow(top)?, String::new())];
    while let Some((handle, prefix)) = pending.pop() {
        for entry in handle.entries()? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            if entry.file_type()?.is_dir() {
                pending.push((handle.open_dir_nofollow(&name)?, format!("{rel}/")));
            } else {
                found.push(rel);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt as _;

    use cap_std::ambient_authority;

    use super::*;

    fn handle() -> (tempfile::TempDir, Dir) {
        let temp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(temp.path(), ambient_authority()).unwrap();
        (temp, dir)
    }

    #[test]
    fn writing_an_existing_file_keeps_its_inode_and_a_read_only_one_is_replaced() {
        let (temp, dir) = handle();
        let path = temp.path().join("a.txt");
        std::fs::write(&path, "one\n").unwrap();
        let inode = std::fs::metadata(&path).unwrap().ino();
        write_file(&dir, Path::new("a.txt"), b"two\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two\n");
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);

        set_mode(&dir, Path::new("a.txt"), 0o444).unwrap();
        write_file(&dir, Path::new("a.txt"), b"three\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"three\n");
    }

    #[test]
    fn writing_over_a_symlink_replaces_the_link_not_its_target() {
        let (temp, dir) = handle();
        std::fs::write(temp.path().join("target.txt"), "kept\n").unwrap();
        symlink(&dir, "target.txt", Path::new("link")).unwrap();
        write_file(&dir, Path::new("link"), b"new\n").unwrap();
        assert_eq!(
            std::fs::read(temp.path().join("target.txt")).unwrap(),
            b"kept\n"
        );
        assert!(dir.symlink_metadata("link").unwrap().is_file());
    }

    /// A handle on a temporary directory holding the file `sub/a`, and
    /// how to read that file's permission bits.
    fn with_file() -> (tempfile::TempDir, Dir, impl Fn() -> u32) {
        let (temp, dir) = handle();
        make_parent(&dir, Path::new("sub/a")).unwrap();
        write_file(&dir, Path::new("sub/a"), b"x").unwrap();
        let file = temp.path().join("sub/a");
        let mode = move || std::fs::metadata(&file).unwrap().mode() & 0o7777;
        (temp, dir, mode)
    }

    #[test]
    fn a_mode_is_changed_by_name_beneath_the_parent_but_never_through_a_symlink() {
        let (_temp, dir, mode) = with_file();
        chmod_by_name(&dir, Path::new("sub/a"), 0o600).unwrap();
        assert_eq!(mode(), 0o600);
        symlink(&dir, "a", Path::new("sub/link")).unwrap();
        chmod_by_name(&dir, Path::new("sub/link"), 0o777).unwrap_err();
        let escape = chmod_by_name(&dir, Path::new("../x"), 0o777).unwrap_err();
        assert!(is_escape(&escape), "{escape:?}");
        assert_eq!(mode(), 0o600);
    }

    #[test]
    fn a_mode_with_no_access_for_anyone_can_be_set_and_changed_back() {
        let (_temp, dir, mode) = with_file();
        set_mode(&dir, Path::new("sub/a"), 0o000).unwrap();
        assert_eq!(mode(), 0o000);
        set_mode(&dir, Path::new("sub/a"), 0o640).unwrap();
        assert_eq!(mode(), 0o640);
    }
}
