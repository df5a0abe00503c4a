//! The processes a scenario left alive, for `expect_no_processes`.
//!
//! A process is the scenario's when its working directory is in the
//! sandbox (every command a tool runs starts there, and a process that
//! leaves its session, its parent and its environment keeps it) or its
//! command line names the sandbox. The implementation itself is not
//! counted: its own process always, and while it lives, the processes of
//! its process group whose only tie is the command line (an adapter
//! started with `{root}`). Zombies are dead and not counted.
//!
//! `/proc` is Linux's; elsewhere the step cannot judge and says so.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often `/proc` is read while waiting for processes to end.
const POLL: Duration = Duration::from_millis(50);

/// How many survivors a failure lists by name.
const LISTED: usize = 8;

/// A process of the scenario that is still alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Leftover {
    pub(crate) pid: i32,
    /// Its command line, arguments joined by spaces.
    pub(crate) command: String,
    /// What ties it to the scenario.
    pub(crate) tie: Tie,
}

/// Why a process counts as the scenario's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tie {
    WorksInTheSandbox,
    NamesTheSandbox,
}

/// Who is not counted: the implementation, while it lives.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Exempt {
    /// The implementation's pid, which is also its process group.
    pub(crate) implementation: Option<u32>,
}

/// The sandbox's root as written and as the kernel shows it (`/proc`
/// resolves symlinks, so a root under a symlinked `TMPDIR` is seen by its
/// real path).
#[derive(Debug, Clone)]
pub(crate) struct Roots(Vec<PathBuf>);

impl Roots {
    pub(crate) fn of(root: &Path) -> Roots {
        let mut roots = vec![root.to_path_buf()];
        if let Ok(real) = root.canonicalize()
            && real != root
        {
            roots.push(real);
        }
        Roots(roots)
    }

    fn holds(&self, path: &Path) -> bool {
        self.0.iter().any(|root| path.starts_with(root))
    }

    fn named_in(&self, command: &str) -> bool {
        self.0
            .iter()
            .filter_map(|root| root.to_str())
            .any(|root| command.contains(root))
    }
}

/// Waits up to `limit` for the scenario's processes to end; the ones still
/// alive then. Blocking.
pub(crate) fn wait_for_none(roots: &Roots, exempt: Exempt, limit: Duration) -> Vec<Leftover> {
    let deadline = Instant::now() + limit;
    loop {
        let alive = find(roots, exempt);
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(POLL);
    }
}

/// What a failed `expect_no_processes` says: how many, and the first few by
/// pid, command line and tie.
pub(crate) fn describe(leftovers: &[Leftover], waited: Duration) -> String {
    let mut text = format!(
        "{} process{} of the scenario {} still alive {} ms after the step began:",
        leftovers.len(),
        if leftovers.len() == 1 { "" } else { "es" },
        if leftovers.len() == 1 { "is" } else { "are" },
        waited.as_millis()
    );
    for leftover in leftovers.iter().take(LISTED) {
        let tie = match leftover.tie {
            Tie::WorksInTheSandbox => "its working directory is in the sandbox",
            Tie::NamesTheSandbox => "its command line names the sandbox",
        };
        text.push_str(&format!(
            "\n  pid {}: `{}` ({tie})",
            leftover.pid, leftover.command
        ));
    }
    if leftovers.len() > LISTED {
        text.push_str(&format!("\n  and {} more", leftovers.len() - LISTED));
    }
    text
}

#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) use linux::{CAN_JUDGE, end, find};

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) use elsewhere::{CAN_JUDGE, end, find};

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::path::Path;

    use rustix::process::{Pid, PidfdFlags, Signal};

    use super::{Exempt, Leftover, Roots, Tie};
    use crate::reaper::{StatFields, stat_fields};

    /// Whether this runner can tell a scenario's processes.
    pub(crate) const CAN_JUDGE: bool = true;

    /// The scenario's processes alive now.
    pub(crate) fn find(roots: &Roots, exempt: Exempt) -> Vec<Leftover> {
        let me = std::process::id();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut found: Vec<Leftover> = entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|&pid| pid != me && Some(pid) != exempt.implementation)
            .filter_map(|pid| examine(pid, roots, exempt))
            .collect();
        found.sort_by_key(|leftover| leftover.pid);
        found
    }

    /// The process `pid` as a leftover, if it is a live one of the
    /// scenario's.
    fn examine(pid: u32, roots: &Roots, exempt: Exempt) -> Option<Leftover> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let StatFields { state, group, .. } = stat_fields(&stat)?;
        if matches!(state, 'Z' | 'X' | 'x') {
            return None;
        }
        let command = command_line(pid);
        let tie = if std::fs::read_link(format!("/proc/{pid}/cwd"))
            .is_ok_and(|cwd| roots.holds(Path::new(&cwd)))
        {
            Tie::WorksInTheSandbox
        } else if roots.named_in(&command) && Some(group) != exempt.implementation {
            Tie::NamesTheSandbox
        } else {
            return None;
        };
        Some(Leftover {
            pid: i32::try_from(pid).ok()?,
            command,
            tie,
        })
    }

    fn command_line(pid: u32) -> String {
        let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let words: Vec<String> = bytes
            .split(|&b| b == 0)
            .filter(|word| !word.is_empty())
            .map(|word| String::from_utf8_lossy(word).into_owned())
            .collect();
        // One line per process in a report: a script's line breaks and
        // tabs are shown as spaces.
        let mut line: String = words
            .join(" ")
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        if line.chars().count() > 200 {
            line = line.chars().take(200).collect::<String>() + "…";
        }
        line
    }

    /// Kills each leftover that is still the scenario's, so a failed step
    /// leaves nothing running. Each is pinned by a pidfd before it is
    /// looked at again, so a pid reused in between is never signalled.
    pub(crate) fn end(leftovers: &[Leftover], roots: &Roots, exempt: Exempt) {
        for leftover in leftovers {
            let Some(pid) = Pid::from_raw(leftover.pid) else {
                continue;
            };
            let Ok(pidfd) = rustix::process::pidfd_open(pid, PidfdFlags::empty()) else {
                continue;
            };
            let raw = pid.as_raw_pid().unsigned_abs();
            if examine(raw, roots, exempt).is_some() {
                // It may have died since: ESRCH is what we wanted.
                let _ = rustix::process::pidfd_send_signal(&pidfd, Signal::KILL);
            }
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod elsewhere {
    use super::{Exempt, Leftover, Roots};

    /// Whether this runner can tell a scenario's processes.
    pub(crate) const CAN_JUDGE: bool = false;

    pub(crate) fn find(_: &Roots, _: Exempt) -> Vec<Leftover> {
        Vec::new()
    }

    pub(crate) fn end(_: &[Leftover], _: &Roots, _: Exempt) {}
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn a_process_working_in_the_sandbox_is_found_named_and_ended() {
        let sandbox = tempfile::tempdir().unwrap();
        let roots = Roots::of(sandbox.path());
        let mut child = Command::new("sleep")
            .arg("30")
            .current_dir(sandbox.path())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let found = find(&roots, Exempt::default());
        let ours: Vec<&Leftover> = found.iter().filter(|l| l.pid == pid).collect();
        assert_eq!(ours.len(), 1, "{found:?}");
        assert_eq!(ours[0].tie, Tie::WorksInTheSandbox);
        assert_eq!(ours[0].command, "sleep 30");
        let text = describe(&found, Duration::from_millis(5));
        assert!(text.contains(&format!("pid {pid}: `sleep 30`")), "{text}");

        end(&found, &roots, Exempt::default());
        let status = child.wait().unwrap();
        assert!(!status.success(), "killed, not ended: {status:?}");
        // Reaped: nothing of the sandbox is left.
        let left = wait_for_none(&roots, Exempt::default(), Duration::from_secs(5));
        assert!(left.iter().all(|l| l.pid != pid), "{left:?}");
    }

    #[test]
    fn a_process_naming_the_sandbox_counts_unless_it_is_the_implementations() {
        let sandbox = tempfile::tempdir().unwrap();
        let roots = Roots::of(sandbox.path());
        let root = sandbox.path().to_str().unwrap().to_owned();
        let mut child = Command::new("sh")
            .args(["-c", "sleep 30; :", &root])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        let found = find(&roots, Exempt::default());
        assert!(
            found
                .iter()
                .any(|l| l.pid == i32::try_from(pid).unwrap() && l.tie == Tie::NamesTheSandbox),
            "{found:?}"
        );
        let exempt = Exempt {
            implementation: Some(pid),
        };
        assert!(
            find(&roots, exempt)
                .iter()
                .all(|l| l.pid != i32::try_from(pid).unwrap()),
            "the implementation itself is not counted"
        );
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
