use std::time::{Duration, Instant};

use serde_json::Value;

use super::*;

/// Cases recorded from Qwen Code 0.24.4 itself: each `content` and
/// `params` passed to the published package's `applyNotebookEdit`, with
/// what it returned (`ok`: the updated text, the edited cell's id, whether
/// a re-read is required) or threw (`err`: message and error type).
const QWEN_CASES: &str = include_str!("qwen_cases.json");

fn request(params: &Value) -> Request<'_> {
    let text = |key: &str| params[key].as_str();
    Request {
        cell_id: text("cell_id"),
        new_source: text("new_source").unwrap_or_default(),
        cell_type: text("cell_type"),
        mode: match text("edit_mode") {
            Some("insert") => Mode::Insert,
            Some("delete") => Mode::Delete,
            _ => Mode::Replace,
        },
    }
}

#[test]
fn every_recorded_qwen_case_gives_qwens_bytes_and_errors() {
    let cases: Vec<Value> = serde_json::from_str(QWEN_CASES).unwrap();
    assert!(cases.len() >= 20);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let content = case["content"].as_str().unwrap();
        let got = apply(content, &request(&case["params"]));
        if let Some(ok) = case.get("ok") {
            let applied = got.unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!(applied.updated, ok["updated"].as_str().unwrap(), "{name}");
            assert_eq!(applied.edited_cell_id, ok["id"].as_str().unwrap(), "{name}");
            assert_eq!(
                applied.requires_read_after_write,
                ok["reread"].as_bool().unwrap(),
                "{name}"
            );
            continue;
        }
        let (message, kind) = (
            case["err"]["message"].as_str().unwrap(),
            case["err"]["type"].as_str().unwrap(),
        );
        let err = got.expect_err(name);
        match (&err, kind) {
            // V8's words for a syntax error are V8's; the kind is what counts.
            (ApplyError::InvalidJson(m), "notebook_invalid_json")
                if !message.starts_with("Invalid notebook") =>
            {
                assert!(!m.is_empty(), "{name}");
            }
            (ApplyError::InvalidJson(m), "notebook_invalid_json")
            | (ApplyError::Ambiguous(m), "invalid_tool_params")
            | (ApplyError::CellNotFound(m), "notebook_cell_not_found") => {
                assert_eq!(m, message, "{name}");
            }
            _ => panic!("{name}: {err:?} is not Qwen's {kind}"),
        }
    }
}

/// A notebook of `cells` one-line code cells, with real ids.
fn big_notebook(cells: usize) -> String {
    let mut text = String::from("{\n \"cells\": [\n");
    for i in 0..cells {
        if i > 0 {
            text.push_str(",\n");
        }
        text.push_str(&format!(
            "  {{\"cell_type\": \"code\", \"id\": \"c{i}\", \"metadata\": {{}}, \"source\": [\"x = {i}\"], \"outputs\": [], \"execution_count\": null}}"
        ));
    }
    text.push_str("\n ],\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n");
    text
}

#[test]
fn a_hundred_thousand_cells_are_edited_in_bounded_time() {
    let text = big_notebook(100_000);
    let start = Instant::now();
    let replaced = apply(
        &text,
        &Request {
            cell_id: Some("c99999"),
            new_source: "y = 1",
            cell_type: None,
            mode: Mode::Replace,
        },
    )
    .unwrap();
    let inserted = apply(
        &text,
        &Request {
            cell_id: Some("c50000"),
            new_source: "z",
            cell_type: Some("markdown"),
            mode: Mode::Insert,
        },
    )
    .unwrap();
    // Each pass is linear; a quadratic lookup would take minutes here.
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
    assert!(replaced.updated.contains("\"y = 1\""));
    assert!(!replaced.requires_read_after_write);
    assert_eq!(inserted.edited_cell_id, "qwen-cell-1");
    let at = inserted.updated.find("\"id\": \"qwen-cell-1\"").unwrap();
    assert!(inserted.updated[..at].contains("\"c50000\""));
    assert!(!inserted.updated[..at].contains("\"c50001\""));
}

#[test]
fn a_lone_surrogate_is_refused_rather_than_rewritten() {
    let err = apply(
        r#"{"cells":[{"id":"a","source":"\ud800"}]}"#,
        &Request {
            cell_id: Some("a"),
            new_source: "x",
            cell_type: None,
            mode: Mode::Replace,
        },
    )
    .unwrap_err();
    assert!(matches!(err, ApplyError::InvalidJson(m) if m.contains("surrogate")));
}

#[test]
fn a_modified_proposal_must_still_be_a_notebook() {
    let stable = r#"{"cells":[{"id":"a"}]}"#;
    assert_eq!(check_modified(stable, stable), Ok(false));
    assert_eq!(check_modified(stable, r#"{"cells":[{}]}"#), Ok(true));
    assert!(matches!(
        check_modified(stable, "{"),
        Err(ApplyError::InvalidJson(_))
    ));
}
