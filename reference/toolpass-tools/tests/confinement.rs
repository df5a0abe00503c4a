//! Confinement by handle: a directory inside the root swapped for a symlink
//! to outside — between a call's build and its execution, or at any moment
//! while calls run — never lets `read_file`, `write_file` or `edit` read or
//! write the outside. Everything lives in one temporary directory: the root
//! and, beside it, the "outside".

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::json;

use common::{Sandbox, code};
use toolpass_tools::context::InvocationContext;
use toolpass_tools::error_code::ToolErrorCode;
use toolpass_tools::result::ToolResult;

const SECRET: &str = "OUTSIDE-SECRET\n";

/// The sandbox, with `d/` (holding `f.txt`) inside the root and, beside the
/// root, an outside directory with the same names and a secret content, and
/// `d.swap`, a symlink to it, ready to be exchanged with `d`.
fn swappable() -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    sb.write("d/f.txt", "inside\n");
    let outside = sb.outside();
    fs::write(outside.join("f.txt"), SECRET).unwrap();
    std::os::unix::fs::symlink(&outside, sb.path("d.swap")).unwrap();
    (sb, outside)
}

/// Exchanges `d` and `d.swap` atomically: `d` is a symlink to outside after
/// an odd number of swaps.
fn swap(root: &Path) {
    renameat_with(
        CWD,
        root.join("d"),
        CWD,
        root.join("d.swap"),
        RenameFlags::EXCHANGE,
    )
    .unwrap();
}

/// What the outside holds: its names and contents.
fn outside_state(outside: &Path) -> Vec<(String, String)> {
    let mut state: Vec<_> = fs::read_dir(outside)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let content = fs::read_to_string(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), content)
        })
        .collect();
    state.sort();
    state
}

#[test]
fn a_swap_between_build_and_execution_is_refused() {
    let (sb, outside) = swappable();
    let before = outside_state(&outside);
    sb.execute("read_file", json!({"file_path": sb.arg("d/f.txt")}));
    let read = sb.build("read_file", &json!({"file_path": sb.arg("d/f.txt")}));
    let write = sb.build(
        "write_file",
        &json!({"file_path": sb.arg("d/f.txt"), "content": "mine\n"}),
    );
    let create = sb.build(
        "write_file",
        &json!({"file_path": sb.arg("d/new/g.txt"), "content": "mine\n"}),
    );
    let edit = sb.build(
        "edit",
        &json!({"file_path": sb.arg("d/f.txt"), "old_string": "inside", "new_string": "x"}),
    );
    swap(sb.root());
    for invocation in [read, write, create, edit] {
        let result = invocation
            .unwrap()
            .execute(&sb.session, &InvocationContext::detached())
            .unwrap_or_else(ToolResult::from);
        assert_eq!(
            code(&result),
            Some(ToolErrorCode::PathNotInWorkspace),
            "{result:?}"
        );
        assert!(!result.llm_content.contains("OUTSIDE-SECRET"));
    }
    assert_eq!(outside_state(&outside), before);
}

#[test]
fn calls_racing_a_swapper_never_reach_outside() {
    let (sb, outside) = swappable();
    let before = outside_state(&outside);
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let root = sb.root().to_owned();
        thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                swap(&root);
                swaps += 1;
            }
            // Leave `d` a directory again.
            if swaps % 2 == 1 {
                swap(&root);
            }
            swaps
        })
    };
    let mut outside_reads = 0;
    for i in 0..300 {
        let read = sb.call("read_file", json!({"file_path": sb.arg("d/f.txt")}));
        if read.llm_content.contains("OUTSIDE-SECRET") {
            outside_reads += 1;
        }
        sb.call(
            "write_file",
            json!({"file_path": sb.arg(&format!("d/w{i}/new.txt")), "content": "w\n"}),
        );
        sb.call(
            "edit",
            json!({"file_path": sb.arg("d/f.txt"), "old_string": "inside", "new_string": "inside"}),
        );
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 0);
    assert_eq!(outside_reads, 0, "outside content read ({swaps} swaps)");
    assert_eq!(outside_state(&outside), before, "outside written");
}

#[test]
fn the_spill_directory_is_readable_and_never_writable() {
    let sb = Sandbox::new();
    let spill = sb.session.spill_dir().unwrap().to_owned();
    fs::write(spill.join("grep_1.output"), "spilled\n").unwrap();
    let file = spill.join("grep_1.output").to_string_lossy().into_owned();
    let read = sb.call("read_file", json!({"file_path": file}));
    assert_eq!(read.llm_content, "spilled\n");
    for (tool, args) in [
        ("write_file", json!({"file_path": file, "content": "x"})),
        (
            "write_file",
            json!({"file_path": spill.join("new.txt"), "content": "x"}),
        ),
        (
            "edit",
            json!({"file_path": file, "old_string": "spilled", "new_string": "x"}),
        ),
    ] {
        let result = sb.call(tool, args);
        assert_eq!(
            code(&result),
            Some(ToolErrorCode::PathNotInWorkspace),
            "{result:?}"
        );
    }
    assert_eq!(
        fs::read_to_string(spill.join("grep_1.output")).unwrap(),
        "spilled\n"
    );
    assert!(!spill.join("new.txt").exists());
}
