//! A writer killed with SIGKILL in the middle of a large atomic write leaves
//! either the old file or the new one, never a mix. It leaves no temporary
//! file, except when the kill lands in the commit's exchange (the only
//! moment the new file has a temporary name); the next commit in the
//! directory removes that one.
//!
//! The test re-runs its own binary as the writer (selected by an environment
//! variable), lets it rewrite a 16 MiB file in a loop, kills it at varied
//! moments and checks the file each time.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use toolpass_tools::faults::Faults;
use toolpass_tools::fileio::{Fingerprint, Precondition, write_atomic};
use toolpass_tools::sandbox::Sandbox;

const CHILD_ENV: &str = "TOOLPASS_KILL9_WRITER";
const SIZE: usize = 16 << 20;

/// The writer: alternates the file between all-`a` and all-`b` forever.
fn writer(path: &Path) -> ! {
    let contents = [vec![b'a'; SIZE], vec![b'b'; SIZE]];
    let faults = Faults::default();
    let sandbox = Sandbox::new(path.parent().unwrap()).unwrap();
    let target = sandbox.locate(&path.to_string_lossy()).unwrap();
    for round in 0usize.. {
        let meta = fs::metadata(path).unwrap();
        let precondition = Precondition::Unchanged(Fingerprint::of(&meta));
        write_atomic(&faults, &target, &contents[round % 2], precondition, false).unwrap();
    }
    unreachable!()
}

#[test]
fn a_killed_writer_leaves_the_old_or_the_new_file() {
    if let Ok(path) = std::env::var(CHILD_ENV) {
        writer(Path::new(&path));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bin");
    fs::write(&path, vec![b'a'; SIZE]).unwrap();

    for delay_ms in [3, 11, 29, 47, 83, 131, 199, 307] {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_killed_writer_leaves_the_old_or_the_new_file",
                "--nocapture",
            ])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL: no destructor, no cleanup runs.
        child.wait().unwrap();

        let bytes = fs::read(&path).unwrap();
        assert_eq!(
            bytes.len(),
            SIZE,
            "after {delay_ms} ms the file has {} bytes",
            bytes.len()
        );
        let first = bytes[0];
        assert!(
            bytes.iter().all(|&b| b == first),
            "after {delay_ms} ms the file mixes old and new bytes"
        );
        let others: Vec<_> = names(dir.path())
            .into_iter()
            .filter(|n| n != "big.bin")
            .collect();
        assert!(
            others.len() <= 1 && others.iter().all(|n| n.ends_with(".tmp")),
            "after {delay_ms} ms: {others:?}"
        );
    }
    // One more commit cleans up what a kill in the exchange left.
    let sandbox = Sandbox::new(dir.path()).unwrap();
    let target = sandbox.locate(&path.to_string_lossy()).unwrap();
    let precondition = Precondition::Unchanged(Fingerprint::of(&fs::metadata(&path).unwrap()));
    write_atomic(&Faults::default(), &target, b"done", precondition, false).unwrap();
    assert_eq!(names(dir.path()), ["big.bin"]);
}

fn names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}
