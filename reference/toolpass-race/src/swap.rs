//! The swapper: a thread that exchanges `root/d` (a real directory of
//! innocent files) with a symlink to the outside, in a tight loop, while
//! calls run. `renameat2(RENAME_EXCHANGE)` swaps both names in one atomic
//! step, so at every instant `root/d` is one or the other, never missing:
//! a server that checks a path once and then reopens it by name follows
//! whichever it finds.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use anyhow::{Context, Result, anyhow};
use rustix::fs::{CWD, RenameFlags, renameat_with};
use rustix::process::Pid;
use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

/// A running swapper; [`Swapper::stop`] ends it with `root/d` the real
/// directory again.
pub(crate) struct Swapper {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<u64>>,
}

impl Swapper {
    /// Starts exchanging `a` and `b` (both absolute), on `cpu` when given.
    pub(crate) fn start(a: &Path, b: &Path, cpu: Option<usize>) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let (a, b) = (a.to_owned(), b.to_owned());
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            if let Some(cpu) = cpu {
                pin(None, cpu)?;
            }
            swap_until(&flag, &a, &b)
        });
        Swapper { stop, thread }
    }

    /// Stops the loop and returns how many exchanges it made.
    pub(crate) fn stop(self) -> Result<u64> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| anyhow!("the swapper panicked"))?
    }
}

/// Two CPUs this process may run on, one for the swapper and one for the
/// server, or `None` with fewer. A hit needs both running at once: when
/// the scheduler puts them on one core they take turns, the link never
/// moves while the server works, and a run can count 0 on a server that
/// races.
pub(crate) fn two_cpus() -> Result<Option<(usize, usize)>> {
    let allowed = sched_getaffinity(None).context("sched_getaffinity")?;
    let mut cpus = (0..CpuSet::MAX_CPU).filter(|&cpu| allowed.is_set(cpu));
    Ok(cpus.next().zip(cpus.next()))
}

/// Keeps `pid` (this thread when `None`) on `cpu`.
pub(crate) fn pin(pid: Option<Pid>, cpu: usize) -> Result<()> {
    let mut set = CpuSet::new();
    set.set(cpu);
    sched_setaffinity(pid, &set).with_context(|| format!("sched_setaffinity to CPU {cpu}"))
}

fn swap_until(stop: &AtomicBool, a: &Path, b: &Path) -> Result<u64> {
    let mut swaps = 0u64;
    while !stop.load(Ordering::Relaxed) {
        exchange(a, b)?;
        swaps += 1;
    }
    // An even count leaves both names where they started.
    if !swaps.is_multiple_of(2) {
        exchange(a, b)?;
        swaps += 1;
    }
    Ok(swaps)
}

fn exchange(a: &Path, b: &Path) -> Result<()> {
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)
        .with_context(|| format!("exchange {} and {}", a.display(), b.display()))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn the_swapper_exchanges_and_ends_where_it_began() {
        let dir = tempfile::tempdir().unwrap();
        let (real, link) = (dir.path().join("d"), dir.path().join("spare"));
        fs::create_dir(&real).unwrap();
        fs::write(real.join("x"), "inside").unwrap();
        fs::create_dir(dir.path().join("outside")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), &link).unwrap();

        let swapper = Swapper::start(&real, &link, None);
        let mut seen_link = false;
        // By time, not by count: on a loaded machine the thread may start
        // late.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < until {
            let Ok(meta) = fs::symlink_metadata(&real) else {
                panic!("root/d was missing mid-swap");
            };
            seen_link |= meta.file_type().is_symlink();
            if seen_link {
                break;
            }
        }
        let swaps = swapper.stop().unwrap();
        assert!(swaps > 0 && swaps.is_multiple_of(2), "{swaps}");
        assert!(seen_link, "never saw root/d as the link");
        assert!(fs::symlink_metadata(&real).unwrap().is_dir());
        assert_eq!(fs::read_to_string(real.join("x")).unwrap(), "inside");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
