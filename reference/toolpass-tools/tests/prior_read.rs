//! `check_prior_read`, one test per row of the seed's decision table (§6.1),
//! on real files.

use std::fs;
use std::path::PathBuf;

use toolpass_tools::faults::{FaultPoint, Faults};
use toolpass_tools::prior_read::{Decision, Verb, check_prior_read};
use toolpass_tools::read_cache::{FileReadCache, ReadKind};

struct Table {
    dir: tempfile::TempDir,
    cache: FileReadCache,
    faults: Faults,
}

impl Table {
    fn new() -> Self {
        Table {
            dir: tempfile::tempdir().unwrap(),
            cache: FileReadCache::default(),
            faults: Faults::default(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&mut self, name: &str, kind: ReadKind) {
        let path = self.path(name);
        let meta = fs::metadata(&path).unwrap();
        self.cache.record_read(&path, &meta, kind);
    }

    fn check(&self, name: &str, verb: Verb, expect_existing: bool) -> Decision {
        check_prior_read(
            &self.cache,
            &self.faults,
            &self.path(name),
            name,
            verb,
            expect_existing,
        )
    }

    fn refusal(&self, name: &str, verb: Verb, expect_existing: bool) -> (&'static str, String) {
        let refusal = self.check(name, verb, expect_existing).unwrap_err();
        (refusal.code, refusal.raw_message)
    }
}

const TEXT: ReadKind = ReadKind {
    full: true,
    cacheable: true,
};

#[test]
fn missing_and_not_expected_is_a_new_file() {
    let t = Table::new();
    assert!(matches!(t.check("new.txt", Verb::Editing, false), Ok(None)));
}

#[test]
fn missing_but_expected_is_a_file_that_vanished() {
    let t = Table::new();
    let (code, raw) = t.refusal("gone.txt", Verb::Editing, true);
    assert_eq!(code, "file_changed_since_read");
    assert!(raw.contains("disappeared after the model read it"), "{raw}");
}

#[test]
fn any_other_stat_error_fails_closed() {
    let t = Table::new();
    fs::write(t.path("a.txt"), "x").unwrap();
    t.faults.arm(FaultPoint::FsStat, 1);
    let (code, raw) = t.refusal("a.txt", Verb::Overwriting, false);
    assert_eq!(code, "prior_read_verification_failed");
    assert_eq!(
        raw,
        "Could not stat a.txt to verify prior read (EACCES). Re-read with the read_file tool, then retry overwriting it."
    );
}

#[test]
fn a_directory_is_refused() {
    let t = Table::new();
    fs::create_dir(t.path("d")).unwrap();
    assert_eq!(
        t.refusal("d", Verb::Editing, false).0,
        "target_is_directory"
    );
}

#[test]
fn a_fifo_is_refused_without_opening_it() {
    let t = Table::new();
    let status = std::process::Command::new("mkfifo")
        .arg(t.path("p"))
        .status()
        .unwrap();
    assert!(status.success());
    let (code, raw) = t.refusal("p", Verb::Editing, false);
    assert_eq!(code, "edit_requires_prior_read");
    assert!(
        raw.starts_with("p is a FIFO / socket / character or block device."),
        "{raw}"
    );
}

#[test]
fn fresh_text_read_passes_even_when_partial() {
    let mut t = Table::new();
    fs::write(t.path("a.txt"), "x").unwrap();
    t.read(
        "a.txt",
        ReadKind {
            full: false,
            cacheable: true,
        },
    );
    assert!(matches!(t.check("a.txt", Verb::Editing, true), Ok(Some(_))));
}

#[test]
fn stale_is_refused() {
    let mut t = Table::new();
    fs::write(t.path("a.txt"), "x").unwrap();
    t.read("a.txt", TEXT);
    fs::write(t.path("a.txt"), "longer").unwrap();
    assert_eq!(
        t.refusal("a.txt", Verb::Editing, false).0,
        "file_changed_since_read"
    );
}

#[test]
fn fresh_but_not_text_is_refused_with_its_own_message() {
    let mut t = Table::new();
    fs::write(t.path("a.png"), [0x89, b'P', b'N', b'G']).unwrap();
    t.read(
        "a.png",
        ReadKind {
            full: true,
            cacheable: false,
        },
    );
    let (code, raw) = t.refusal("a.png", Verb::Editing, false);
    assert_eq!(code, "edit_requires_prior_read");
    assert!(
        raw.contains("binary / image / audio / video / PDF / notebook payload"),
        "{raw}"
    );
}

#[test]
fn unknown_is_refused_with_the_verbs_guidance() {
    let t = Table::new();
    fs::write(t.path("a.txt"), "x").unwrap();
    let (code, raw) = t.refusal("a.txt", Verb::Editing, false);
    assert_eq!(code, "edit_requires_prior_read");
    assert!(
        raw.contains("(a partial read with offset / limit is fine"),
        "{raw}"
    );
    let (_, raw) = t.refusal("a.txt", Verb::Overwriting, false);
    assert!(raw.contains("(read the full file"), "{raw}");
}

#[test]
fn a_reused_inode_does_not_inherit_another_files_read() {
    // Regression: on tmpfs a deleted file's inode number goes to the next new
    // file at once, and the cache is keyed by inode, so a never-read file was
    // judged by the record of the file that had the number before (seen as a
    // false "modified since you last read it"). The record now counts only
    // for the path it was made under. A hard link reproduces "same inode,
    // other path" deterministically.
    let mut t = Table::new();
    fs::write(t.path("seen.txt"), "seen").unwrap();
    t.read("seen.txt", TEXT);
    fs::hard_link(t.path("seen.txt"), t.path("other.txt")).unwrap();
    let (code, raw) = t.refusal("other.txt", Verb::Editing, false);
    assert_eq!(code, "edit_requires_prior_read", "{raw}");
    assert!(raw.contains("has not been read in this session"), "{raw}");
    assert!(matches!(
        t.check("seen.txt", Verb::Editing, false),
        Ok(Some(_))
    ));
}
