//! Finding and ending every process a command started.
//!
//! Qwen Code kills a shell's process group (SIGTERM, 200 ms, then SIGKILL:
//! `performCancelKill` in `services/shellExecutionService.ts`), and walks a
//! process tree only for MCP servers (`listDescendantPids` in
//! `tools/pid-descendants.ts`: `ps -A -o pid=,ppid=` with a 2 s timeout and an
//! 8 MiB buffer, then a breadth-first walk of at most 256 descendants, 8
//! levels deep). A group kill misses what left the group (`setsid`, an `npx`
//! wrapper starting its server in a new group), and a tree walk misses what
//! was orphaned before it ran (a double fork reparents the daemon to init).
//! Here the three are combined: the group, the tree walk with Qwen's guards,
//! and a mark in the environment every descendant inherits
//! ([`MARK_ENV`]), which survives reparenting.
//!
//! The tree is read from `/proc` rather than by running `ps`: no process to
//! start (which could itself hang, hence Qwen's timeout) and no output to
//! parse, and the same snapshot gives the environment marks. Each process
//! found is opened as a pidfd and its start time checked again before it is
//! signalled, so a pid reused between the snapshot and the signal is never
//! hit.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::process::{Pid, PidfdFlags, Signal};

use crate::contain::ShellCgroup;

/// The environment variable that marks a command and everything it starts.
pub const MARK_ENV: &str = "TOOLPASS_SHELL";

/// Qwen's `QUERY_TIMEOUT_MS`: the longest one snapshot of the table may take.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(2);
/// Qwen's `SNAPSHOT_MAXBUFFER_BYTES`: the most one snapshot may read.
pub const SNAPSHOT_MAX_BYTES: usize = 8 * 1024 * 1024;
/// Qwen's `MAX_DESCENDANTS`.
pub const MAX_DESCENDANTS: usize = 256;
/// Qwen's `MAX_DEPTH`.
pub const MAX_DEPTH: usize = 8;

/// Rounds of finding and killing: a process forked while its parent was
/// being killed is found by the next round. Bounded, so a fork bomb cannot
/// hold the caller.
const ROUNDS: usize = 10;

/// How long SIGKILLed processes get to die before the next round looks.
const DEATH_WAIT: Duration = Duration::from_secs(1);

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Proc {
    pid: i32,
    parent: i32,
    group: i32,
    /// Clock ticks since boot when it started: with the pid, its identity.
    start: u64,
}

/// The process table, or as much of it as the guards allowed.
#[derive(Debug, Default)]
struct Snapshot {
    procs: Vec<Proc>,
    marked: HashSet<i32>,
}

/// Which processes belong to a command.
#[derive(Clone, Debug)]
pub struct Family {
    /// The command's first process (the shell), its process group leader.
    pub root: i32,
    /// Its process group (its pid: the runner puts it in a group of its own).
    pub group: i32,
    /// The value of [`MARK_ENV`] it was started with.
    pub mark: String,
    /// The cgroup it was started in, when the kernel delegates one
    /// ([`crate::contain`]): what holds whatever left the rest.
    pub cgroup: Option<Arc<ShellCgroup>>,
}

impl Family {
    /// Every live member now: the root's descendants (Qwen's walk and
    /// guards), the group's members, and every process carrying the mark.
    /// The calling process is never one.
    #[must_use]
    pub fn members(&self) -> Vec<i32> {
        self.find().into_iter().map(|p| p.pid).collect()
    }

    fn find(&self) -> Vec<Proc> {
        let snapshot = snapshot(&format!("{MARK_ENV}={}", self.mark));
        let me = rustix::process::getpid().as_raw_pid();
        let mut chosen: HashSet<i32> = descendants(&snapshot.procs, self.root)
            .into_iter()
            .collect();
        chosen.insert(self.root);
        chosen.extend(
            snapshot
                .procs
                .iter()
                .filter(|p| p.group == self.group)
                .map(|p| p.pid),
        );
        chosen.extend(&snapshot.marked);
        chosen.remove(&me);
        snapshot
            .procs
            .into_iter()
            .filter(|p| chosen.contains(&p.pid))
            .collect()
    }

    /// Ends every member: SIGTERM, up to `grace` for them to go, SIGKILL to
    /// the rest, then more rounds for anything started meanwhile. Even when
    /// the first look finds nothing there is a second: a process caught in
    /// `execve` can show an empty environment for a moment. Returns
    /// the pids that were alive when it began. Blocking: at most `grace`
    /// plus a second per round, and only that long while something resists.
    pub fn end(&self, grace: Duration) -> Vec<i32> {
        let first = self.find();
        let found: Vec<i32> = first.iter().map(|p| p.pid).collect();
        let group = Pid::from_raw(self.group);
        let mut handles = open_all(&first);
        signal_all(&handles, group, Signal::TERM);
        wait_for_exit(&mut handles, grace);
        if let Some(cgroup) = &self.cgroup {
            // Every process started inside, whatever it did to leave the
            // group, the tree or the mark (SIGKILL, past the grace the
            // found ones had).
            cgroup.kill();
        }
        for _ in 0..ROUNDS {
            signal_all(&handles, group, Signal::KILL);
            wait_for_exit(&mut handles, DEATH_WAIT);
            handles = open_all(&self.find());
            if handles.is_empty() {
                break;
            }
        }
        found
    }
}

/// A process opened for signalling.
struct Handle {
    fd: OwnedFd,
}

/// Opens a pidfd for each process still the one the snapshot saw; a process
/// gone (or a zombie) has nothing left to end.
fn open_all(procs: &[Proc]) -> Vec<Handle> {
    procs
        .iter()
        .filter_map(|p| {
            let pid = Pid::from_raw(p.pid)?;
            let fd = rustix::process::pidfd_open(pid, PidfdFlags::empty()).ok()?;
            // Read after the pidfd is open: if the start time still matches,
            // the pidfd names the process the snapshot saw.
            let now = read_stat(p.pid)?;
            (now.start == p.start).then_some(Handle { fd })
        })
        .collect()
}

fn signal_all(handles: &[Handle], group: Option<Pid>, signal: Signal) {
    // The group first: it reaches members forked since the snapshot. ESRCH
    // (the group is empty) is the expected end.
    if let Some(group) = group {
        let _ = rustix::process::kill_process_group(group, signal);
    }
    for handle in handles {
        let _ = rustix::process::pidfd_send_signal(&handle.fd, signal);
    }
}

/// Waits up to `limit` for the processes to exit (a pidfd polls readable
/// then), keeping only those still running.
fn wait_for_exit(handles: &mut Vec<Handle>, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let mut fds: Vec<PollFd<'_>> = handles
            .iter()
            .map(|h| PollFd::new(&h.fd, PollFlags::IN))
            .collect();
        let left = deadline.saturating_duration_since(Instant::now());
        if fds.is_empty() || left.is_zero() {
            return;
        }
        let timeout = Timespec::try_from(left).ok();
        if rustix::event::poll(&mut fds, timeout.as_ref()).is_err() {
            return;
        }
        let exited: Vec<bool> = fds.iter().map(|fd| !fd.revents().is_empty()).collect();
        drop(fds);
        let mut index = 0;
        handles.retain(|_| {
            let keep = !exited[index];
            index += 1;
            keep
        });
    }
}

/// Reads the process table within Qwen's guards; past a guard, what was
/// read so far.
fn snapshot(mark_entry: &str) -> Snapshot {
    let deadline = Instant::now() + QUERY_TIMEOUT;
    let mut budget = SNAPSHOT_MAX_BYTES;
    let mut snapshot = Snapshot::default();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return snapshot;
    };
    for entry in entries.flatten() {
        if Instant::now() > deadline || budget == 0 {
            break;
        }
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read(format!("/proc/{pid}/stat")) else {
            continue;
        };
        budget = budget.saturating_sub(stat.len());
        let Some((proc_, zombie)) = parse_stat(pid, &stat) else {
            continue;
        };
        // A zombie has exited: nothing to signal, and no environment.
        if zombie {
            continue;
        }
        if let Ok(environment) = std::fs::read(format!("/proc/{pid}/environ")) {
            budget = budget.saturating_sub(environment.len());
            if environment
                .split(|&b| b == 0)
                .any(|entry| entry == mark_entry.as_bytes())
            {
                snapshot.marked.insert(pid);
            }
        }
        snapshot.procs.push(proc_);
    }
    snapshot
}

fn read_stat(pid: i32) -> Option<Proc> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat).and_then(|(p, zombie)| (!zombie).then_some(p))
}

/// The fields of a `/proc/<pid>/stat` line, and whether it is a zombie. The
/// command name is in parentheses and may itself hold `) `, so fields are
/// counted from the last `)`.
fn parse_stat(pid: i32, stat: &[u8]) -> Option<(Proc, bool)> {
    let text = std::str::from_utf8(&stat[stat.iter().rposition(|&b| b == b')')? + 1..]).ok()?;
    // After the name: state (field 3), ppid (4), pgrp (5), ... starttime (22).
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let state = *fields.first()?;
    let parent = fields.get(1)?.parse().ok()?;
    let group = fields.get(2)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((
        Proc {
            pid,
            parent,
            group,
            start,
        },
        state == "Z" || state == "X",
    ))
}

/// Qwen's `walkDescendants`: breadth first from `root`, at most
/// [`MAX_DESCENDANTS`] processes, none deeper than [`MAX_DEPTH`].
fn descendants(procs: &[Proc], root: i32) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in procs {
        children.entry(p.parent).or_default().push(p.pid);
    }
    let mut found = Vec::new();
    let mut visited = HashSet::from([root]);
    let mut queue = VecDeque::from([(root, 0)]);
    while let Some((pid, depth)) = queue.pop_front() {
        if found.len() >= MAX_DESCENDANTS {
            break;
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        for &child in children.get(&pid).map_or(&[][..], Vec::as_slice) {
            if !visited.insert(child) {
                continue;
            }
            if found.len() >= MAX_DESCENDANTS {
                break;
            }
            found.push(child);
            queue.push_back((child, depth + 1));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_(pid: i32, parent: i32) -> Proc {
        Proc {
            pid,
            parent,
            group: pid,
            start: 0,
        }
    }

    #[test]
    fn stat_lines_parse_even_with_odd_command_names() {
        let stat =
            b"4242 (we) ird) S 17 4200 4200 0 -1 4194560 99 0 0 0 0 0 0 0 20 0 1 0 12345 0 0";
        let (p, zombie) = parse_stat(4242, stat).unwrap();
        assert_eq!(
            (p.parent, p.group, p.start, zombie),
            (17, 4200, 12345, false)
        );
        let dead = b"7 (z) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0";
        assert!(parse_stat(7, dead).unwrap().1);
        assert_eq!(parse_stat(1, b"1 (init) S"), None);
    }

    #[test]
    fn the_walk_stops_at_qwens_depth() {
        // A chain 1 -> 2 -> ... -> 20.
        let chain: Vec<Proc> = (2..=20).map(|pid| proc_(pid, pid - 1)).collect();
        assert_eq!(descendants(&chain, 1), (2..=9).collect::<Vec<_>>());
    }

    #[test]
    fn the_walk_stops_at_qwens_count() {
        let wide: Vec<Proc> = (2..1000).map(|pid| proc_(pid, 1)).collect();
        assert_eq!(descendants(&wide, 1).len(), MAX_DESCENDANTS);
    }

    #[test]
    fn the_walk_survives_a_cycle() {
        let cycle = [proc_(2, 1), proc_(3, 2), proc_(1, 3)];
        assert_eq!(descendants(&cycle, 1), [2, 3]);
    }

    #[test]
    fn this_process_is_in_the_table_and_never_its_own_family_member() {
        let me = rustix::process::getpid().as_raw_pid();
        let family = Family {
            cgroup: None,
            root: me,
            group: i32::MAX,
            mark: "none".into(),
        };
        assert!(!family.members().contains(&me));
        assert!(read_stat(me).is_some());
    }
}
