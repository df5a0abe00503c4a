//! File IO with the fault points wired in: stat, and the atomic write, both
//! beneath the sandbox's directory handles (see [`Located`]).
//!
//! Beyond Qwen (which admits that its last stat and `writeTextFile` still
//! race): a write goes to an unnamed temporary file (`O_TMPFILE`) in the
//! target's directory, is fsynced, gets the original's permissions, and is
//! committed only while the target's fingerprint still holds:
//!
//! 1. Commits in one directory are serialised by an advisory lock on the
//!    directory (`flock`), which every toolpass process takes: two reference
//!    servers editing one file cannot interleave their check and commit.
//! 2. The target's fingerprint is compared right before the commit.
//! 3. The commit is `renameat2(RENAME_EXCHANGE)`: the new file takes the
//!    name and the displaced file stays reachable under the temporary name,
//!    so it is compared once more; if a writer slipped in between 2 and 3 the
//!    two are exchanged back and the write refused, keeping that writer's
//!    bytes. Only then is the displaced file unlinked.
//!
//! What remains (ARCHITECTURE.md measures it): a process that does not take
//! the lock and still holds a descriptor of the old file can write to it
//! after step 3's comparison; those bytes land in the unlinked file. A
//! create links the temporary file to the name with `linkat`, which fails if
//! the name appeared. A crash at any point leaves the old file or the new
//! one, never a mix, and no temporary file: an unnamed one vanishes with
//! the process. Only a kill inside the exchange leaves a named one, and the
//! next commit in that directory removes it (`remove_debris_once`).

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use cap_std::fs::Dir;
use rustix::fs::{
    Access, AtFlags, FileType, FlockOperation, Mode, OFlags, RenameFlags, accessat, fchmod, flock,
    linkat, openat, renameat, renameat_with, statat, unlinkat,
};
use rustix::io::Errno;

use crate::faults::{CONCURRENT_WRITE, FaultPoint, Faults};
use crate::located::{Located, Parent};

pub use crate::errno::errno_name;

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

    /// The fingerprint of what `name` in `dir` is now, not following a
    /// symlink (a symlink swapped in is a change, never a way elsewhere).
    fn at(dir: &Dir, name: &OsStr) -> io::Result<Self> {
        let stat = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(Fingerprint {
            dev: stat.st_dev,
            ino: stat.st_ino,
            mtime_ns: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
            size: u64::try_from(stat.st_size).unwrap_or(0),
        })
    }
}

/// `stat` following symlinks beneath the sandbox, failing with `EACCES`
/// when the `fs.stat` fault is armed.
///
/// # Errors
/// The stat error, real or injected, or an escape.
pub fn stat(faults: &Faults, target: &Located) -> io::Result<Metadata> {
    if faults.fire(FaultPoint::FsStat) {
        return Err(io::Error::from(Errno::ACCESS));
    }
    target.stat()
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
    /// An IO error (an escape among them); nothing was left behind.
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

impl From<Errno> for WriteError {
    fn from(e: Errno) -> Self {
        WriteError::Io(e.into())
    }
}

/// Writes `bytes` to `target` atomically if `precondition` still holds at
/// the commit, making its parent directories first when `create_parents`
/// is set, and returns the new file's metadata.
///
/// An existing target the caller may not write (its mode has no write bit
/// for anyone, or `access(W_OK)` fails) is refused with `EACCES`, as
/// writing it in place would be: the rename would otherwise replace it
/// regardless. The same holds for a target outside the writable root.
///
/// # Errors
/// [`WriteError::Changed`] when another writer got there first; an IO error
/// otherwise. Either way the target keeps the bytes it had.
pub fn write_atomic(
    faults: &Faults,
    target: &Located,
    bytes: &[u8],
    precondition: Precondition,
    create_parents: bool,
) -> Result<Metadata, WriteError> {
    if !target.is_writable() {
        return Err(Errno::ACCESS.into());
    }
    let Parent { dir, name } = target.parent(create_parents)?;
    // A real descriptor of the directory: cap-std's handles are `O_PATH`,
    // which neither `flock` nor `fsync` accept.
    let dir_file = dir.open(".")?.into_std();
    let _lock = DirLock::exclusive(&dir_file)?;
    remove_debris_once(&dir, &dir_file);

    let mode = match precondition {
        Precondition::Unchanged(_) => Some(writable_mode(&dir, &name)?),
        Precondition::Absent => None,
    };
    let temp = TempFile::create(&dir, mode)?;
    (&temp.file).write_all(bytes)?;
    temp.file.sync_all()?;
    let written = temp.file.metadata()?;

    match precondition {
        Precondition::Unchanged(expected) => {
            if Fingerprint::at(&dir, &name).ok() != Some(expected) {
                return Err(WriteError::Changed);
            }
            if faults.fire(FaultPoint::WriteBeforeCommit) {
                simulate_other_writer(&dir, &name)?;
            }
            let staged = temp.link_named(&dir, &name)?;
            replace_if_unchanged(&dir, &staged, &name, expected)?;
        }
        Precondition::Absent => {
            if faults.fire(FaultPoint::WriteBeforeCommit) {
                simulate_other_writer(&dir, &name)?;
            }
            // linkat fails if the name exists: create-without-replace,
            // atomically, where rename would clobber a file that appeared.
            match temp.link_as(&dir, &name) {
                Err(e) if e == Errno::EXIST => return Err(WriteError::Changed),
                other => other?,
            }
        }
    }
    // The new name is durable only once the directory entry is.
    dir_file.sync_all()?;
    Ok(written)
}

/// The mode of the existing `name`, refusing one the caller may not write.
/// Not following a symlink: one swapped in is a change, and its target's
/// mode is none of this write's business.
fn writable_mode(dir: &Dir, name: &OsStr) -> Result<u32, WriteError> {
    let stat = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(WriteError::Changed);
    }
    if stat.st_mode & 0o222 == 0 {
        return Err(Errno::ACCESS.into());
    }
    accessat(dir, name, Access::WRITE_OK, AtFlags::EACCESS)?;
    Ok(stat.st_mode & 0o7777)
}

/// Moves the file staged as `staged` to `name` if what `name` holds still
/// has the fingerprint `expected` once it is displaced; otherwise puts
/// everything back. `staged` is gone afterwards in every case.
fn replace_if_unchanged(
    dir: &Dir,
    staged: &OsStr,
    name: &OsStr,
    expected: Fingerprint,
) -> Result<(), WriteError> {
    let _cleanup = Unlink { dir, name: staged };
    match renameat_with(dir, staged, dir, name, RenameFlags::EXCHANGE) {
        Ok(()) => {
            // `staged` now names the displaced file.
            if Fingerprint::at(dir, staged).ok() != Some(expected) {
                renameat_with(dir, staged, dir, name, RenameFlags::EXCHANGE)?;
                return Err(WriteError::Changed);
            }
            Ok(())
        }
        // File systems without the exchange (and kernels before 3.15):
        // the plain rename, guarded by the comparison just made.
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
            renameat(dir, staged, dir, name)?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// Removes `name` from `dir` when dropped (best effort: it may be gone).
struct Unlink<'a> {
    dir: &'a Dir,
    name: &'a OsStr,
}

impl Drop for Unlink<'_> {
    fn drop(&mut self) {
        let _ = unlinkat(self.dir, self.name, AtFlags::empty());
    }
}

/// An exclusive advisory lock on a directory, released on drop.
struct DirLock<'a>(&'a File);

impl<'a> DirLock<'a> {
    fn exclusive(dir: &'a File) -> io::Result<Self> {
        flock(dir, FlockOperation::LockExclusive)?;
        Ok(DirLock(dir))
    }
}

impl Drop for DirLock<'_> {
    fn drop(&mut self) {
        let _ = flock(self.0, FlockOperation::Unlock);
    }
}

/// The other writer of `write.before_commit`: appends [`CONCURRENT_WRITE`],
/// or creates the file with it.
fn simulate_other_writer(dir: &Dir, name: &OsStr) -> io::Result<()> {
    let mut options = cap_std::fs::OpenOptions::new();
    options.append(true).create(true);
    let mut file = dir.open_with(name, &options)?.into_std();
    file.write_all(CONCURRENT_WRITE.as_bytes())?;
    file.sync_all()
}

/// The new content's file: unnamed (`O_TMPFILE`) where the file system
/// allows it, so a crash leaves nothing behind; otherwise a hidden sibling
/// removed on drop.
struct TempFile {
    file: File,
    /// The sibling's name when the file system has no `O_TMPFILE`.
    named: Option<(Dir, OsString)>,
}

impl TempFile {
    fn create(dir: &Dir, keep: Option<u32>) -> io::Result<Self> {
        // A new file gets 0666 less the umask, as `open` gives any new file.
        let mode = Mode::from_raw_mode(keep.unwrap_or(0o666));
        let flags = OFlags::RDWR | OFlags::CLOEXEC;
        let temp = match openat(dir, ".", flags | OFlags::TMPFILE, mode) {
            Ok(fd) => TempFile {
                file: File::from(fd),
                named: None,
            },
            // Not every file system has O_TMPFILE (and some report it as
            // EISDIR, the flag's other half).
            Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL) => {
                let name = temp_name();
                let fd = openat(
                    dir,
                    &name,
                    flags | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW,
                    mode,
                )?;
                TempFile {
                    file: File::from(fd),
                    named: Some((dir.try_clone()?, name)),
                }
            }
            Err(e) => return Err(e.into()),
        };
        if keep.is_some() {
            // The umask narrowed the mode given to open; the original's wins.
            fchmod(&temp.file, mode)?;
        }
        Ok(temp)
    }

    /// Links the file under `name` in `dir`; fails with `EEXIST` if the name
    /// is taken.
    fn link_as(&self, dir: &Dir, name: &OsStr) -> Result<(), Errno> {
        match &self.named {
            Some((from, temp)) => linkat(from, temp, dir, name, AtFlags::empty()),
            None => link_unnamed(&self.file, dir, name),
        }
    }

    /// A name in `dir` (beside `target`) for the file, for the exchange.
    fn link_named(&self, dir: &Dir, target: &OsStr) -> io::Result<OsString> {
        if let Some((_, temp)) = &self.named {
            return Ok(temp.clone());
        }
        let mut name = OsString::from(".");
        name.push(target);
        name.push(temp_name());
        link_unnamed(&self.file, dir, &name)?;
        Ok(name)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some((dir, name)) = &self.named {
            let _ = unlinkat(dir, name, AtFlags::empty());
        }
    }
}

/// Gives the unnamed `file` the name `name` in `dir`. `AT_EMPTY_PATH` needs
/// no privilege for a file this process opened on current kernels; the
/// `/proc/self/fd` link is the documented way on older ones.
fn link_unnamed(file: &File, dir: &Dir, name: &OsStr) -> Result<(), Errno> {
    match linkat(file.as_fd(), "", dir, name, AtFlags::EMPTY_PATH) {
        Err(Errno::NOENT | Errno::PERM) => {
            let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
            linkat(
                rustix::fs::CWD,
                proc_path.as_str(),
                dir,
                name,
                AtFlags::SYMLINK_FOLLOW,
            )
        }
        other => other,
    }
}

/// Whether `name` is one of this module's temporary names:
/// `.toolpass-PID-N.tmp`, or `.TARGET.toolpass-PID-N.tmp` for the exchange.
fn is_temp_name(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    let Some(stem) = name.strip_suffix(".tmp") else {
        return false;
    };
    let Some((_, ids)) = stem.rsplit_once(".toolpass-") else {
        return false;
    };
    let Some((pid, n)) = ids.split_once('-') else {
        return false;
    };
    name.starts_with('.')
        && [pid, n]
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

/// Removes the temporary names a killed writer left in `dir`, the first
/// time this process commits there. A temporary name exists only while its
/// writer holds the directory's lock, and the caller holds it now: any such
/// name is debris, whoever made it.
fn remove_debris_once(dir: &Dir, dir_file: &File) {
    static CLEANED: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);
    let Ok(meta) = dir_file.metadata() else {
        return;
    };
    let mut cleaned = CLEANED.lock().unwrap_or_else(PoisonError::into_inner);
    if !cleaned
        .get_or_insert_with(HashSet::new)
        .insert((meta.dev(), meta.ino()))
    {
        return;
    }
    drop(cleaned);
    let Ok(entries) = dir.entries() else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if is_temp_name(&name) {
            tracing::debug!("removing a killed writer's temporary file {name:?}");
            let _ = unlinkat(dir, &name, AtFlags::empty());
        }
    }
}

/// A name no other write of this process or another uses at once.
fn temp_name() -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    OsString::from(format!(".toolpass-{}-{unique}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::*;
    use crate::sandbox::{Sandbox, is_escape};

    fn setup(content: &str) -> (tempfile::TempDir, Sandbox, Located, Fingerprint) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("root")).unwrap();
        let sandbox = Sandbox::new(&dir.path().join("root")).unwrap();
        fs::write(sandbox.root().join("f.txt"), content).unwrap();
        let target = sandbox.locate("f.txt").unwrap();
        let fp = Fingerprint::of(&target.stat().unwrap());
        (dir, sandbox, target, fp)
    }

    fn write(target: &Located, bytes: &[u8], pre: Precondition) -> Result<Metadata, WriteError> {
        write_atomic(&Faults::default(), target, bytes, pre, false)
    }

    /// Every name in the tree under `dir` but the files given.
    fn debris(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("toolpass"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn overwrites_when_unchanged_and_keeps_the_mode() {
        let (_dir, sb, target, fp) = setup("old\n");
        // chmod changes ctime, not the mtime + size fingerprint.
        fs::set_permissions(target.path(), fs::Permissions::from_mode(0o640)).unwrap();
        let meta = write(&target, b"new\n", Precondition::Unchanged(fp)).unwrap();
        assert_eq!(fs::read_to_string(target.path()).unwrap(), "new\n");
        assert_eq!(
            Fingerprint::of(&meta),
            Fingerprint::of(&fs::metadata(target.path()).unwrap())
        );
        assert_eq!(
            fs::metadata(target.path()).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert!(debris(sb.root()).is_empty());
    }

    #[test]
    fn a_writer_between_check_and_commit_wins_and_keeps_its_bytes() {
        let (_dir, sb, target, fp) = setup("old\n");
        let faults = Faults::default();
        faults.arm(FaultPoint::WriteBeforeCommit, 1);
        let err = write_atomic(
            &faults,
            &target,
            b"new\n",
            Precondition::Unchanged(fp),
            false,
        )
        .unwrap_err();
        assert!(matches!(err, WriteError::Changed));
        assert_eq!(
            fs::read_to_string(target.path()).unwrap(),
            format!("old\n{CONCURRENT_WRITE}")
        );
        assert!(debris(sb.root()).is_empty());
    }

    #[test]
    fn create_refuses_a_file_that_appeared() {
        let (_dir, sb, target, _) = setup("someone else's\n");
        let err = write(&target, b"mine\n", Precondition::Absent).unwrap_err();
        assert!(matches!(err, WriteError::Changed));
        assert_eq!(
            fs::read_to_string(target.path()).unwrap(),
            "someone else's\n"
        );
        let fresh = sb.locate("new.txt").unwrap();
        write(&fresh, b"mine\n", Precondition::Absent).unwrap();
        assert_eq!(fs::read_to_string(fresh.path()).unwrap(), "mine\n");
        assert!(debris(sb.root()).is_empty());
    }

    #[test]
    fn a_read_only_file_is_refused_and_keeps_its_bytes() {
        let (_dir, sb, target, fp) = setup("locked\n");
        fs::set_permissions(target.path(), fs::Permissions::from_mode(0o444)).unwrap();
        let err = write(&target, b"new\n", Precondition::Unchanged(fp)).unwrap_err();
        let WriteError::Io(e) = err else {
            panic!("expected EACCES, got {err:?}")
        };
        assert_eq!(errno_name(&e), "EACCES");
        assert_eq!(fs::read_to_string(target.path()).unwrap(), "locked\n");
        assert!(debris(sb.root()).is_empty());
    }

    #[test]
    fn parents_are_made_beneath_the_root_and_never_through_a_link_out() {
        let (dir, sb, _, _) = setup("");
        let nested = sb.locate("a/b/c.txt").unwrap();
        write_atomic(
            &Faults::default(),
            &nested,
            b"x",
            Precondition::Absent,
            true,
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(sb.root().join("a/b/c.txt")).unwrap(),
            "x"
        );

        // `d` was a directory when the path was checked, and is a symlink
        // to outside when the write happens.
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        fs::create_dir(sb.root().join("d")).unwrap();
        let target = sb.locate("d/new/f.txt").unwrap();
        fs::remove_dir(sb.root().join("d")).unwrap();
        std::os::unix::fs::symlink(&outside, sb.root().join("d")).unwrap();
        let err = write_atomic(
            &Faults::default(),
            &target,
            b"x",
            Precondition::Absent,
            true,
        )
        .unwrap_err();
        assert!(matches!(&err, WriteError::Io(e) if is_escape(e)), "{err:?}");
        assert!(fs::read_dir(&outside).unwrap().next().is_none());
    }

    #[test]
    fn a_new_file_gets_the_umask_mode_and_an_overwritten_one_keeps_its_own() {
        let (_dir, sb, _, _) = setup("");
        let fresh = sb.locate("fresh.txt").unwrap();
        write(&fresh, b"x", Precondition::Absent).unwrap();
        // Read, not set: setting the umask would race the other tests.
        let status = fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
            .unwrap();
        let mode = fs::metadata(fresh.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask);
    }

    #[test]
    fn only_this_module_s_temporary_names_count_as_debris() {
        for name in [".toolpass-12-0.tmp", ".big.bin.toolpass-12-345.tmp"] {
            assert!(is_temp_name(OsStr::new(name)), "{name}");
        }
        for name in [
            "toolpass-12-0.tmp",
            ".toolpass-12-0.txt",
            ".toolpass--0.tmp",
            ".notes.toolpass-x-1.tmp",
            ".toolpass-12.tmp",
        ] {
            assert!(!is_temp_name(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn a_killed_writer_s_temporary_file_is_removed_by_the_next_commit() {
        let (_dir, sb, target, fp) = setup("old\n");
        let debris = sb.root().join(".f.txt.toolpass-999999-0.tmp");
        fs::write(&debris, "half").unwrap();
        fs::write(sb.root().join("keep.tmp"), "mine").unwrap();
        write(&target, b"new\n", Precondition::Unchanged(fp)).unwrap();
        assert!(!debris.exists());
        assert!(sb.root().join("keep.tmp").exists());
    }

    #[test]
    fn the_spill_area_is_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("spill");
        fs::create_dir_all(&spill).unwrap();
        fs::create_dir(dir.path().join("root")).unwrap();
        let sb = Sandbox::new(&dir.path().join("root"))
            .unwrap()
            .admitting(&spill)
            .unwrap();
        let target = sb
            .locate(&spill.join("x.output").to_string_lossy())
            .unwrap();
        assert!(!target.is_writable());
        let err = write(&target, b"x", Precondition::Absent).unwrap_err();
        assert!(matches!(err, WriteError::Io(e) if errno_name(&e) == "EACCES"));
        assert!(!spill.join("x.output").exists());
    }

    #[test]
    fn the_stat_fault_fails_with_eacces_once() {
        let (_dir, _sb, target, _) = setup("x");
        let faults = Faults::default();
        faults.arm(FaultPoint::FsStat, 1);
        let err = stat(&faults, &target).unwrap_err();
        assert_eq!(errno_name(&err), "EACCES");
        assert!(stat(&faults, &target).is_ok());
    }
}
