//! Containing every process a command starts in a cgroup of its own, where
//! the kernel delegates cgroup v2 to this process.
//!
//! A process group, the `/proc` tree and the environment mark ([`tree`])
//! each lose a process that tries: `setsid` leaves the group, a double fork
//! leaves the tree, `env -i` drops the mark. A cgroup holds every
//! descendant whatever it does (only a process with write access to another
//! cgroup can move itself out), and `cgroup.kill` (Linux 5.14) ends them all
//! at once. So each command's first process joins a fresh cgroup under
//! `toolpass-<pid>/` beside this server before it runs anything: the server
//! starts it through its own executable in a join mode
//! ([`JOIN_FLAG`]), which writes its own pid into the cgroup and then execs
//! the shell, so no child of the shell ever starts outside.
//!
//! And a watchdog process (its own executable again, [`WATCHDOG_FLAG`], in
//! a process group of its own) holds the read end of a pipe only this
//! server writes to: when the server ends in any way, `kill -9` included,
//! the pipe closes and the watchdog kills `toolpass-<pid>/` whole and
//! removes it.
//!
//! Where no cgroup v2 is delegated (no writable hierarchy, an older kernel
//! without `cgroup.kill`), [`enable`] says why and the process group, tree
//! and mark are what is left.
//!
//! [`tree`]: crate::tree

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The argument that makes this server's executable join a cgroup and exec
/// the rest of its arguments: `--toolpass-join-cgroup DIR -- PROGRAM ARGS…`.
pub const JOIN_FLAG: &str = "--toolpass-join-cgroup";
/// The argument that makes it the watchdog of a cgroup: `--toolpass-watchdog
/// DIR`, reading standard input until it closes.
pub const WATCHDOG_FLAG: &str = "--toolpass-watchdog";

/// How long a kill waits for the cgroup to empty before it removes it.
const EMPTY_WAIT: Duration = Duration::from_secs(2);

/// Where this server's commands are contained.
struct Containment {
    /// The executable that joins and execs (this server's own).
    launcher: PathBuf,
    /// `toolpass-<pid>/`, under which each command gets its cgroup.
    parent: PathBuf,
    /// The write end of the watchdog's pipe, held until the process ends.
    _watchdog: Mutex<ChildStdin>,
}

static CONTAINMENT: OnceLock<Containment> = OnceLock::new();
static SHELLS: AtomicU64 = AtomicU64::new(0);

/// Contains every command started from now on in a cgroup of its own,
/// started through `launcher` (this process's executable, which must
/// answer [`JOIN_FLAG`] and [`WATCHDOG_FLAG`] with [`join_and_exec`] and
/// [`watchdog`]). Returns the parent cgroup, or why there is none.
pub fn enable(launcher: PathBuf) -> Result<PathBuf, String> {
    use std::os::unix::process::CommandExt;
    if let Some(contained) = CONTAINMENT.get() {
        return Ok(contained.parent.clone());
    }
    let own = own_cgroup().ok_or("no cgroup v2 hierarchy is mounted for this process")?;
    let parent = own.join(format!("toolpass-{}", std::process::id()));
    std::fs::create_dir(&parent)
        .map_err(|e| format!("cannot create a cgroup under {}: {e}", own.display()))?;
    if !parent.join("cgroup.kill").exists() {
        let _ = std::fs::remove_dir(&parent);
        return Err("the kernel has no cgroup.kill (Linux 5.14 or later)".to_owned());
    }
    let watchdog = Command::new(&launcher)
        .arg(WATCHDOG_FLAG)
        .arg(&parent)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Out of the server's group: a kill of that group leaves it to
        // clean up.
        .process_group(0)
        .spawn();
    let stdin = match watchdog.map(|mut child| child.stdin.take()) {
        Ok(Some(stdin)) => stdin,
        Ok(None) | Err(_) => {
            let _ = std::fs::remove_dir(&parent);
            return Err("cannot start the cgroup watchdog".to_owned());
        }
    };
    let contained = CONTAINMENT.get_or_init(|| Containment {
        launcher,
        parent,
        _watchdog: Mutex::new(stdin),
    });
    Ok(contained.parent.clone())
}

/// Ends whatever still runs in this server's cgroups and removes them: for
/// an orderly exit, where the watchdog may not get its turn (a supervisor
/// that reaps orphans can kill it first).
pub fn release() {
    if let Some(contained) = CONTAINMENT.get() {
        kill_and_remove(&contained.parent);
    }
}

/// This process's cgroup v2 directory: its `0::` line in
/// `/proc/self/cgroup` under the mount point of the `cgroup2` file system.
fn own_cgroup() -> Option<PathBuf> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let relative = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // `ID PARENT MAJ:MIN ROOT MOUNT OPTIONS… - TYPE SOURCE SUPER`.
    let mount = mounts.lines().find_map(|line| {
        let (fields, after) = line.split_once(" - ")?;
        (after.split(' ').next()? == "cgroup2").then(|| fields.split(' ').nth(4))?
    })?;
    Some(Path::new(mount).join(relative.trim_start_matches('/')))
}

/// One command's cgroup, removed when the command's family is ended.
#[derive(Debug)]
pub struct ShellCgroup {
    dir: PathBuf,
    /// The executable that joins `dir` and execs the shell.
    launcher: &'static Path,
}

impl ShellCgroup {
    /// A fresh cgroup for the next command, when containment is enabled.
    pub(crate) fn create() -> Option<ShellCgroup> {
        let contained = CONTAINMENT.get()?;
        let n = SHELLS.fetch_add(1, Ordering::Relaxed);
        let dir = contained.parent.join(format!("shell-{n}"));
        std::fs::create_dir(&dir).ok()?;
        Some(ShellCgroup {
            dir,
            launcher: &contained.launcher,
        })
    }

    /// The words that start `program` inside this cgroup: the launcher in
    /// its join mode, then `program`.
    pub(crate) fn launch(&self, program: &str) -> (PathBuf, Vec<OsString>) {
        let launcher = self.launcher.to_owned();
        let args = vec![
            JOIN_FLAG.into(),
            self.dir.clone().into_os_string(),
            "--".into(),
            program.into(),
        ];
        (launcher, args)
    }

    /// Ends every process in the cgroup and removes it once empty.
    pub(crate) fn kill(&self) {
        kill_and_remove(&self.dir);
    }
}

impl Drop for ShellCgroup {
    fn drop(&mut self) {
        // Empty by now unless something still runs; then the watchdog or
        // the next kill of the parent removes it.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// `cgroup.kill`, a bounded wait for `populated 0`, then the directory
/// and, depth first, any cgroup a process made inside it.
fn kill_and_remove(dir: &Path) {
    // Most commands leave nothing behind: then there is nothing to wait
    // for, and a call pays no poll.
    if populated(dir) {
        let _ = std::fs::write(dir.join("cgroup.kill"), "1");
        let deadline = Instant::now() + EMPTY_WAIT;
        while populated(dir) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    remove_tree(dir);
}

fn populated(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("cgroup.events"))
        .is_ok_and(|events| events.lines().any(|l| l == "populated 1"))
}

fn remove_tree(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// The join mode: `DIR -- PROGRAM ARGS…` after [`JOIN_FLAG`]. Moves this
/// process into `DIR` and execs the program in its place (same pid, same
/// environment). A failed join still runs the program: the group, tree and
/// mark remain. Returns only if the exec fails, with its error.
pub fn join_and_exec(args: &[OsString]) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    let [dir, separator, program, rest @ ..] = args else {
        return std::io::Error::other(format!("usage: {JOIN_FLAG} DIR -- PROGRAM ARGS…"));
    };
    if separator != "--" {
        return std::io::Error::other(format!("usage: {JOIN_FLAG} DIR -- PROGRAM ARGS…"));
    }
    let _ = std::fs::write(
        Path::new(dir).join("cgroup.procs"),
        std::process::id().to_string(),
    );
    Command::new(program).args(rest).exec()
}

/// The watchdog mode: waits for standard input to close (the server has
/// ended), then kills and removes `dir`.
pub fn watchdog(dir: &Path) {
    let mut sink = [0u8; 64];
    let mut stdin = std::io::stdin();
    while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
    kill_and_remove(dir);
}
