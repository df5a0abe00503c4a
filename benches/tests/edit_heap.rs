//! Heap check for the write path: an `edit` of a file, and a `write_file`
//! of new content, through the tool layer as the server runs a call, hold
//! about twice the file at once: the old text and the new one, which the
//! diff shown to the model needs, plus the diff's index of their lines (the
//! bytes written are the new text's own when it is UTF-8, and the
//! replacement is sized before it is built). dhat counts live heap bytes between the
//! profiler's start and end; the call's arguments are built before it
//! starts, as the server has them from the request. One test per binary:
//! the allocator's counts are process-wide.
//!
//! Measured when this test was written (`cargo test -p toolpass-benches
//! --test edit_heap -- --nocapture`): edit 2.50×, write_file 2.29× of a
//! 4 MiB file of 100-byte lines (3.5× for the edit before the replacement
//! was sized and the UTF-8 write-back borrowed).

use std::sync::Arc;

use serde_json::json;
use toolpass_tools::scheduler::execute_call;
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::{Declared, Tool};
use toolpass_tools::tools::{edit::EditTool, read_file::ReadFileTool, write_file::WriteFileTool};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const SIZE: usize = 4 << 20;

/// The three tools the test calls.
fn file_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Declared::<ReadFileTool>::default()),
        Arc::new(Declared::<EditTool>::default()),
        Arc::new(Declared::<WriteFileTool>::default()),
    ]
}

/// Peak live heap bytes while `call` runs.
fn peak_bytes(call: impl FnOnce()) -> usize {
    let profiler = dhat::Profiler::builder().testing().build();
    call();
    let peak = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    peak
}

#[test]
fn an_edit_and_a_write_hold_about_two_files() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(dir.path(), SessionConfig::default(), file_tools()).unwrap();
    let path = dir.path().join("big.txt");
    let line = format!("{}\n", "x".repeat(99));
    let text = format!("{}NEEDLE\n", line.repeat(SIZE / line.len()));
    std::fs::write(&path, &text).unwrap();
    let file = path.to_string_lossy().into_owned();
    let read = execute_call(&session, "read_file", &json!({"file_path": file}));
    assert!(!read.result.is_error(), "{:?}", read.result.error);

    let edit = json!({"file_path": file, "old_string": "NEEDLE", "new_string": "DONE"});
    let edit_peak = peak_bytes(|| {
        let outcome = execute_call(&session, "edit", &edit);
        assert!(!outcome.result.is_error(), "{:?}", outcome.result.error);
    });
    let new = dir.path().join("new.txt").to_string_lossy().into_owned();
    let write = json!({"file_path": new, "content": text});
    let write_peak = peak_bytes(|| {
        let outcome = execute_call(&session, "write_file", &write);
        assert!(!outcome.result.is_error(), "{:?}", outcome.result.error);
    });
    #[allow(clippy::cast_precision_loss)] // Ratios, for the record.
    let ratio = |peak: usize| peak as f64 / text.len() as f64;
    eprintln!(
        "edit {:.2}×, write_file {:.2}× of a {}-byte file",
        ratio(edit_peak),
        ratio(write_peak),
        text.len()
    );
    assert!(ratio(edit_peak) <= 3.0, "edit peak {edit_peak}");
    assert!(ratio(write_peak) <= 3.0, "write_file peak {write_peak}");
}
