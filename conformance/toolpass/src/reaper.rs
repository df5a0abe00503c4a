//! Descendants that leave an implementation's process group.
//!
//! Each implementation runs in its own process group, and the supervisor
//! kills the group when the implementation goes. A descendant that left
//! the group (`setsid`, a double fork into a new group) escapes that kill.
//! The command line makes the runner a child subreaper
//! ([`become_subreaper`], Linux's `PR_SET_CHILD_SUBREAPER`), so such a
//! process, once its parent is gone, becomes the runner's child instead of
//! init's, where the runner can still find it.
//!
//! Every implementation is started with [`MARK_ENV`] naming its launch;
//! descendants inherit the environment, so an inherited child carrying the
//! mark (or still in the implementation's process group) is traced to the
//! implementation it came from. When an implementation goes, the
//! supervisor ends exactly those ([`end_descendants`]): another worker's
//! implementation may still rely on its own. [`end_all_descendants`] ends
//! every child left at the end of a command.
//!
//! Only processes that are the runner's children are signalled: until the
//! runner reaps them their pids cannot be reused, so no signal can reach a
//! stranger that got a recycled pid. Without the subreaper (a library user,
//! the tests) nothing is ever inherited and this module does nothing.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};

/// The environment variable that marks an implementation and everything
/// it starts: `<runner pid>-<launch number>`.
pub const MARK_ENV: &str = "TOOLPASS_SUPERVISED";

/// How long one killed process may take to die before the sweep moves on.
const DEATH_WAIT: Duration = Duration::from_secs(5);

/// Rounds of a sweep: killing a process makes its own children the
/// runner's, found by the next round. A bound, so a process that forks
/// faster than it is killed cannot hold the runner.
const ROUNDS: usize = 100;

static SUBREAPER: AtomicBool = AtomicBool::new(false);
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// Makes this process a child subreaper: orphaned descendants become its
/// children. For the command line, which owns every child it has; a test
/// process must not call it, since its other tests' processes would be
/// swept too.
///
/// # Errors
/// When the kernel refuses (not Linux, or too old a kernel).
pub fn become_subreaper() -> io::Result<()> {
    set_child_subreaper()?;
    SUBREAPER.store(true, Ordering::SeqCst);
    Ok(())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn set_child_subreaper() -> io::Result<()> {
    Ok(rustix::process::set_child_subreaper(Some(
        rustix::process::getpid(),
    ))?)
}

/// Other Unixes have no subreaper (and no `/proc` to find children in):
/// there the runner ends only what stays in an implementation's group.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn set_child_subreaper() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "a child subreaper needs Linux",
    ))
}

/// A new mark for an implementation about to be started.
pub(crate) fn new_mark() -> String {
    let launch = LAUNCHES.fetch_add(1, Ordering::Relaxed);
    format!("{}-{launch}", rustix::process::getpid().as_raw_pid())
}

/// Ends every process the runner inherited from the implementation marked
/// `mark` whose process group was `group`, and what each leaves behind.
/// Blocking (it waits for each death); call it once the implementation
/// itself is reaped.
pub(crate) fn end_descendants(mark: &str, group: u32) {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    let entry = format!("{MARK_ENV}={mark}");
    sweep(|child| child.group == group || child.environment_has(|e| e == entry));
}

/// Ends every child the runner still has, with what each leaves behind:
/// for the end of a command, when every implementation is closed, so any
/// child left was inherited, marked or not (a descendant that cleared its
/// environment escapes [`end_descendants`] until then). Does nothing
/// unless [`become_subreaper`] was called: only the command line, which
/// owns every child it has, calls both.
pub fn end_all_descendants() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    sweep(|_| true);
}

/// Kills and reaps the runner's children `chosen` picks, round after round
/// until a round picks none.
fn sweep(chosen: impl Fn(&Child) -> bool) {
    for _ in 0..ROUNDS {
        let picked: Vec<Pid> = children()
            .into_iter()
            .filter(|child| chosen(child))
            .map(|child| child.pid)
            .collect();
        if picked.is_empty() {
            return;
        }
        for pid in &picked {
            // A zombie or a process that just died: ESRCH is fine, the wait
            // below reaps it.
            let _ = rustix::process::kill_process(*pid, Signal::KILL);
        }
        for pid in picked {
            reap(pid);
        }
    }
}

/// Waits (bounded) for a killed child and reaps it.
fn reap(pid: Pid) {
    let deadline = Instant::now() + DEATH_WAIT;
    while Instant::now() < deadline {
        match rustix::process::waitpid(Some(pid), WaitOptions::NOHANG) {
            // Still dying (a process in uninterruptible sleep takes a while).
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            // Reaped, or no longer ours to reap.
            Ok(Some(_)) | Err(_) => return,
        }
    }
}

/// A child of the runner, as `/proc` shows it.
struct Child {
    pid: Pid,
    group: u32,
}

impl Child {
    /// Whether an entry of its environment satisfies `test`. A zombie has
    /// none, and a process that is not ours to read has none we can see.
    fn environment_has(&self, test: impl Fn(&str) -> bool) -> bool {
        let path = format!("/proc/{}/environ", self.pid.as_raw_pid());
        std::fs::read(path).is_ok_and(|bytes| {
            bytes
                .split(|&b| b == 0)
                .any(|entry| std::str::from_utf8(entry).is_ok_and(&test))
        })
    }
}

/// The runner's child processes, from `/proc/<pid>/stat`.
fn children() -> Vec<Child> {
    let me = rustix::process::getpid().as_raw_pid();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let raw: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{raw}/stat")).ok()?;
            let StatFields { parent, group, .. } = stat_fields(&stat)?;
            (parent == me)
                .then(|| Pid::from_raw(raw))
                .flatten()
                .map(|pid| Child { pid, group })
        })
        .collect()
}

/// The fields of a `/proc/<pid>/stat` line the runner reads: the state
/// letter, the parent pid and the process group, the first, second and
/// third fields after the command name, which is in parentheses and may
/// itself hold `) `.
pub(crate) fn stat_fields(stat: &str) -> Option<StatFields> {
    let after = &stat[stat.rfind(") ")? + 2..];
    let mut fields = after.split(' ');
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some(StatFields {
        state,
        parent,
        group,
    })
}

/// What [`stat_fields`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatFields {
    pub(crate) state: char,
    pub(crate) parent: i32,
    pub(crate) group: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_give_the_state_parent_and_group_even_with_odd_command_names() {
        let stat = "4242 (we) ird) S 17 4240 4242 0 -1 4194560 99";
        let expected = StatFields {
            state: 'S',
            parent: 17,
            group: 4240,
        };
        assert_eq!(stat_fields(stat), Some(expected));
        assert_eq!(stat_fields("1 (init) S"), None);
    }

    #[test]
    fn marks_name_this_runner_and_differ_per_launch() {
        let (a, b) = (new_mark(), new_mark());
        assert_ne!(a, b);
        let me = format!("{}-", std::process::id());
        assert!(a.starts_with(&me) && b.starts_with(&me), "{a} {b}");
    }
}
