//! What the runner's and the registry's tests share: telling a dead process
//! from a live one, and reading a pid a command wrote.

use std::path::Path;

/// Whether a process is gone: no entry, or a zombie waiting for a parent
/// that is not this test.
pub(crate) fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let state = stat[stat.rfind(')').unwrap() + 1..]
                .split_whitespace()
                .next();
            matches!(state, Some("Z" | "X"))
        }
    }
}

/// The pid a command wrote to `path` (a file or a FIFO, which this waits on).
pub(crate) fn read_pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}
