//! Two sessions editing one file at once — as two reference servers would,
//! each with its own read cache — lose no update: every edit reported as a
//! success is in the file at the end. Each worker acts as an agent does:
//! read, edit, and on `file_changed_since_read` read again and retry.

mod common;

use std::sync::Arc;
use std::thread;

use serde_json::json;

use common::{Sandbox, code};
use toolpass_tools::error_code::ToolErrorCode;

const EDITS: usize = 300;

/// Adds `EDITS` unique lines before `END`, retrying stale edits; returns
/// the tokens whose edit succeeded.
fn worker(sb: &Sandbox, root: &str, name: &str) -> Vec<String> {
    let path = format!("{root}/shared.txt");
    let mut done = Vec::new();
    for i in 0..EDITS {
        let token = format!("{name}-{i}");
        loop {
            sb.call("read_file", json!({"file_path": path}));
            let result = sb.call(
                "edit",
                json!({"file_path": path, "old_string": "END\n",
                       "new_string": format!("{token}\nEND\n")}),
            );
            match code(&result) {
                None => {
                    done.push(token);
                    break;
                }
                Some(ToolErrorCode::FileChangedSinceRead) => {}
                Some(other) => panic!("{token}: {other}: {}", result.llm_content),
            }
        }
    }
    done
}

#[test]
fn two_sessions_editing_one_file_lose_no_update() {
    let first = Sandbox::new();
    first.write("shared.txt", "END\n");
    let root = first.root().to_string_lossy().into_owned();
    // The second session opens the same root: another server's view.
    let second = Sandbox::at(first.root());
    let first = Arc::new(first);
    let second = Arc::new(second);
    let workers: Vec<_> = [("a", Arc::clone(&first)), ("b", Arc::clone(&second))]
        .into_iter()
        .map(|(name, sb)| {
            let root = root.clone();
            thread::spawn(move || worker(&sb, &root, name))
        })
        .collect();
    let done: Vec<String> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let text = String::from_utf8(first.bytes("shared.txt")).unwrap();
    let lost: Vec<&String> = done
        .iter()
        .filter(|token| !text.lines().any(|line| line == token.as_str()))
        .collect();
    assert_eq!(done.len(), 2 * EDITS);
    assert!(lost.is_empty(), "{} updates lost: {lost:?}", lost.len());
    assert_eq!(text.lines().count(), 2 * EDITS + 1);
}
