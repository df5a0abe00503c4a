//! The session's record of what the model has read: Qwen Code's
//! `FileReadCache` (`packages/core/src/services/fileReadCache.ts`, 0.24).
//!
//! Entries are keyed by `(dev, ino)`, so a rename or a second path to the
//! same file does not lose the record, and compared by mtime + size. The
//! `last_read_was_full` / `last_read_cacheable` flags are sticky-on-true while
//! the fingerprint holds and reset to what the latest read produced once it
//! drifts (Qwen's fix for "read full, external write, read partial, edit").
//!
//! Qwen stamps `lastReadAt` / `lastWriteAt` with `Date.now()`; this crate
//! keeps no clock, so a per-cache sequence number orders reads and writes.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use crate::fileio::Fingerprint;

/// What the cache knows about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadEntry {
    /// The path it was last seen at.
    pub path: PathBuf,
    /// The fingerprint recorded with the last read or write.
    pub fingerprint: Fingerprint,
    /// Sequence number of the last read or write (Qwen's `lastReadAt`).
    pub last_read_at: Option<u64>,
    /// Sequence number of the last write by a tool (Qwen's `lastWriteAt`).
    pub last_write_at: Option<u64>,
    /// The last read covered the whole file.
    pub last_read_was_full: bool,
    /// The last read produced plain text (not binary, image, PDF, notebook).
    pub last_read_cacheable: bool,
}

/// The verdict of [`FileReadCache::check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheState<'a> {
    /// Never read or written in this session.
    Unknown,
    /// Read before, but mtime or size changed since.
    Stale(&'a ReadEntry),
    /// Read before and unchanged since.
    Fresh(&'a ReadEntry),
    /// The file system reports inode 0: identity cannot be verified.
    Unverifiable,
}

/// How a read should be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadKind {
    /// The whole file reached the model (no offset/limit, not truncated).
    pub full: bool,
    /// The content was plain text.
    pub cacheable: bool,
}

/// The read cache of one session.
#[derive(Debug, Default)]
pub struct FileReadCache {
    entries: HashMap<(u64, u64), ReadEntry>,
    clock: u64,
}

impl FileReadCache {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Records a successful read of `path` whose stat was `meta`.
    pub fn record_read(&mut self, path: &Path, meta: &Metadata, kind: ReadKind) {
        let fingerprint = Fingerprint::of(meta);
        if fingerprint.ino == 0 {
            return;
        }
        let now = self.tick();
        self.evict_other_inodes(path, fingerprint);
        let entry = self.entries.entry((fingerprint.dev, fingerprint.ino));
        let entry = entry.or_insert_with(|| ReadEntry {
            path: path.to_owned(),
            fingerprint,
            last_read_at: None,
            last_write_at: None,
            last_read_was_full: false,
            last_read_cacheable: false,
        });
        let same = entry.fingerprint.mtime_ns == fingerprint.mtime_ns
            && entry.fingerprint.size == fingerprint.size;
        if same && entry.last_read_at.is_some() {
            entry.last_read_was_full |= kind.full;
            entry.last_read_cacheable |= kind.cacheable;
        } else {
            entry.last_read_was_full = kind.full;
            entry.last_read_cacheable = kind.cacheable;
        }
        entry.path = path.to_owned();
        entry.fingerprint = fingerprint;
        entry.last_read_at = Some(now);
    }

    /// Records a write by a tool: the model authored the bytes, so it has
    /// "seen" them (full, cacheable unless a structured writer says not).
    pub fn record_write(&mut self, path: &Path, meta: &Metadata, cacheable: bool) {
        let fingerprint = Fingerprint::of(meta);
        if fingerprint.ino == 0 {
            return;
        }
        let now = self.tick();
        self.evict_other_inodes(path, fingerprint);
        self.entries.insert(
            (fingerprint.dev, fingerprint.ino),
            ReadEntry {
                path: path.to_owned(),
                fingerprint,
                last_read_at: Some(now),
                last_write_at: Some(now),
                last_read_was_full: true,
                last_read_cacheable: cacheable,
            },
        );
    }

    /// Forgets every record made for `path` (Qwen's `invalidate` of the
    /// file just written): the model must read it again before the next
    /// mutation, as if it never had.
    pub fn forget(&mut self, path: &Path) {
        self.entries.retain(|_, entry| entry.path != path);
    }

    /// Forgets entries for `path` under another inode: the file there was
    /// replaced (an atomic write renames a new inode over it), and the old
    /// inode number is free to be reused by an unrelated file, which must not
    /// inherit this file's read record.
    fn evict_other_inodes(&mut self, path: &Path, fingerprint: Fingerprint) {
        self.entries.retain(|&(dev, ino), entry| {
            entry.path != path || (dev, ino) == (fingerprint.dev, fingerprint.ino)
        });
    }

    /// The record made for `path` under an inode other than `meta`'s: the
    /// file read (or written) there has since been replaced by another one
    /// (deleted and re-created, or renamed over), whatever number the new
    /// inode got.
    #[must_use]
    pub fn replaced(&self, path: &Path, meta: &Metadata) -> Option<&ReadEntry> {
        let fingerprint = Fingerprint::of(meta);
        self.entries
            .iter()
            .find(|&(&key, entry)| entry.path == path && key != (fingerprint.dev, fingerprint.ino))
            .map(|(_, entry)| entry)
    }

    /// Compares what is cached for `meta`'s inode with `meta`.
    #[must_use]
    pub fn check(&self, meta: &Metadata) -> CacheState<'_> {
        let fingerprint = Fingerprint::of(meta);
        if fingerprint.ino == 0 {
            return CacheState::Unverifiable;
        }
        match self.entries.get(&(fingerprint.dev, fingerprint.ino)) {
            None => CacheState::Unknown,
            Some(entry)
                if entry.fingerprint.mtime_ns != fingerprint.mtime_ns
                    || entry.fingerprint.size != fingerprint.size =>
            {
                CacheState::Stale(entry)
            }
            Some(entry) => CacheState::Fresh(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    const FULL_TEXT: ReadKind = ReadKind {
        full: true,
        cacheable: true,
    };
    const PARTIAL_TEXT: ReadKind = ReadKind {
        full: false,
        cacheable: true,
    };

    fn file(content: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, content).unwrap();
        (dir, path)
    }

    fn meta(path: &Path) -> Metadata {
        fs::metadata(path).unwrap()
    }

    #[test]
    fn unknown_fresh_stale() {
        let (_d, path) = file("a");
        let mut cache = FileReadCache::default();
        assert_eq!(cache.check(&meta(&path)), CacheState::Unknown);
        cache.record_read(&path, &meta(&path), FULL_TEXT);
        assert!(matches!(cache.check(&meta(&path)), CacheState::Fresh(_)));
        fs::write(&path, "ab").unwrap();
        assert!(matches!(cache.check(&meta(&path)), CacheState::Stale(_)));
    }

    #[test]
    fn flags_are_sticky_while_the_fingerprint_holds() {
        let (_d, path) = file("a");
        let mut cache = FileReadCache::default();
        cache.record_read(&path, &meta(&path), FULL_TEXT);
        cache.record_read(&path, &meta(&path), PARTIAL_TEXT);
        let CacheState::Fresh(entry) = cache.check(&meta(&path)) else {
            panic!()
        };
        assert!(entry.last_read_was_full);
    }

    #[test]
    fn flags_reset_when_the_fingerprint_drifted() {
        let (_d, path) = file("a");
        let mut cache = FileReadCache::default();
        cache.record_read(&path, &meta(&path), FULL_TEXT);
        fs::write(&path, "changed").unwrap();
        cache.record_read(&path, &meta(&path), PARTIAL_TEXT);
        let CacheState::Fresh(entry) = cache.check(&meta(&path)) else {
            panic!()
        };
        assert!(!entry.last_read_was_full);
    }

    #[test]
    fn a_write_counts_as_a_full_text_read_and_is_ordered_after_it() {
        let (_d, path) = file("a");
        let mut cache = FileReadCache::default();
        cache.record_read(&path, &meta(&path), PARTIAL_TEXT);
        fs::write(&path, "written").unwrap();
        cache.record_write(&path, &meta(&path), true);
        let CacheState::Fresh(entry) = cache.check(&meta(&path)) else {
            panic!()
        };
        assert!(entry.last_read_was_full && entry.last_read_cacheable);
        assert_eq!(entry.last_read_at, entry.last_write_at);
    }

    #[test]
    fn a_forgotten_path_is_unknown_and_not_replaced() {
        let (_d, path) = file("a");
        let mut cache = FileReadCache::default();
        cache.record_read(&path, &meta(&path), FULL_TEXT);
        cache.forget(&path);
        assert_eq!(cache.check(&meta(&path)), CacheState::Unknown);
        assert!(cache.replaced(&path, &meta(&path)).is_none());
    }

    #[test]
    fn replaced_finds_the_record_of_a_path_under_another_inode() {
        let (dir, path) = file("v1");
        let mut cache = FileReadCache::default();
        cache.record_read(&path, &meta(&path), FULL_TEXT);
        assert!(cache.replaced(&path, &meta(&path)).is_none());
        // Hold the old inode so the new file cannot reuse its number.
        let old = dir.path().join("old");
        fs::hard_link(&path, &old).unwrap();
        fs::remove_file(&path).unwrap();
        fs::write(&path, "v1").unwrap();
        assert_eq!(cache.check(&meta(&path)), CacheState::Unknown);
        let entry = cache.replaced(&path, &meta(&path)).unwrap();
        assert_eq!(entry.path, path);
        assert!(cache.replaced(&old, &meta(&old)).is_none());
    }

    #[test]
    fn a_replaced_file_forgets_the_old_inode() {
        // An atomic write renames a new inode over the path; the old inode's
        // record must go, or a file that later gets that number inherits it.
        let (dir, path) = file("v1");
        let mut cache = FileReadCache::default();
        cache.record_read(&path, &meta(&path), FULL_TEXT);
        let temp = dir.path().join("f.tmp");
        fs::write(&temp, "v2").unwrap();
        fs::rename(&temp, &path).unwrap();
        cache.record_write(&path, &meta(&path), true);
        assert_eq!(cache.entries.len(), 1);
        assert!(matches!(cache.check(&meta(&path)), CacheState::Fresh(_)));
    }
}
