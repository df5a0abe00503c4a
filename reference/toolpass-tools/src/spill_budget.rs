//! The session's spill budget: the bytes of the spill files the output
//! budget writes ([`crate::output_budget::hold`]) are counted, and past
//! [`SPILL_BUDGET_BYTES`] the oldest are dropped, each emptied down to a
//! line saying it was dropped, so the model that reads one later learns
//! why its output is gone instead of finding nothing. A spill larger than
//! the whole budget is not kept at all. Qwen counts only the results it
//! persists whole (its 500 MiB `MAX_SESSION_BYTES`); its spill files count
//! against nothing, so a session printing large outputs fills the disk.

use std::collections::VecDeque;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use crate::located::flags;

/// The most bytes of spill files a session keeps (64 MiB): dozens of
/// outputs far over the threshold, which a model pages back a few at a time.
pub const SPILL_BUDGET_BYTES: u64 = 64 * 1024 * 1024;

/// The spill files a session keeps, oldest first, with their sizes.
#[derive(Debug)]
pub struct SpillLedger {
    budget: u64,
    kept: VecDeque<(PathBuf, u64)>,
    total: u64,
}

impl Default for SpillLedger {
    fn default() -> Self {
        Self::with_budget(SPILL_BUDGET_BYTES)
    }
}

/// What became of a spill the ledger was told of.
#[derive(Debug, PartialEq, Eq)]
pub enum Counted {
    /// Kept; older spills may have been dropped for it.
    Kept,
    /// Larger than the whole budget: removed.
    OverBudget,
}

impl SpillLedger {
    /// A ledger holding spills to `budget` bytes.
    #[must_use]
    pub fn with_budget(budget: u64) -> Self {
        Self {
            budget,
            kept: VecDeque::new(),
            total: 0,
        }
    }

    /// Counts the spill `path` of `bytes`, just written: dropping the
    /// oldest spills until the session is back under its budget, or
    /// removing `path` when it alone passes it.
    pub fn count(&mut self, path: &Path, bytes: u64) -> Counted {
        if bytes > self.budget {
            let _ = std::fs::remove_file(path);
            return Counted::OverBudget;
        }
        self.kept.push_back((path.to_owned(), bytes));
        self.total += bytes;
        while self.total > self.budget {
            let Some((old, size)) = self.kept.pop_front() else {
                break;
            };
            self.total -= size;
            if let Err(e) = drop_spill(&old, self.budget) {
                tracing::warn!("could not drop the spill {}: {e}", old.display());
            }
        }
        Counted::Kept
    }

    /// The bytes counted now.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }
}

/// Empties the spill `path` down to a note saying why, opened without
/// following a symlink so a link put in its place is never written through.
fn drop_spill(path: &Path, budget: u64) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(flags(OFlags::NOFOLLOW))
        .open(path)?;
    writeln!(
        file,
        "[toolpass: this output was dropped to keep the session's spill files under {budget} \
         bytes; run the command again to see it]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spill(dir: &Path, name: &str, bytes: usize) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "x".repeat(bytes)).unwrap();
        path
    }

    #[test]
    fn past_the_budget_the_oldest_spills_are_dropped_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let mut ledger = SpillLedger::with_budget(100);
        let a = spill(dir.path(), "a", 40);
        let b = spill(dir.path(), "b", 40);
        let c = spill(dir.path(), "c", 40);
        assert_eq!(ledger.count(&a, 40), Counted::Kept);
        assert_eq!(ledger.count(&b, 40), Counted::Kept);
        assert_eq!(ledger.count(&c, 40), Counted::Kept);
        assert_eq!(ledger.total(), 80);
        let note = std::fs::read_to_string(&a).unwrap();
        assert!(
            note.contains("dropped") && note.contains("100 bytes"),
            "{note}"
        );
        assert_eq!(std::fs::read_to_string(&b).unwrap().len(), 40);
        assert_eq!(std::fs::read_to_string(&c).unwrap().len(), 40);
    }

    #[test]
    fn a_spill_over_the_whole_budget_is_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let mut ledger = SpillLedger::with_budget(100);
        let a = spill(dir.path(), "a", 40);
        let big = spill(dir.path(), "big", 101);
        ledger.count(&a, 40);
        assert_eq!(ledger.count(&big, 101), Counted::OverBudget);
        assert!(!big.exists());
        assert_eq!(std::fs::read_to_string(&a).unwrap().len(), 40);
        assert_eq!(ledger.total(), 40);
    }

    #[test]
    fn a_link_put_in_place_of_an_old_spill_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let mut ledger = SpillLedger::with_budget(50);
        let a = spill(dir.path(), "a", 40);
        ledger.count(&a, 40);
        let target = spill(dir.path(), "target", 3);
        std::fs::remove_file(&a).unwrap();
        std::os::unix::fs::symlink(&target, &a).unwrap();
        let b = spill(dir.path(), "b", 40);
        ledger.count(&b, 40);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "xxx");
    }
}
