//! The committed schemas under `schemas/` match the Rust types; `BLESS=1`
//! rewrites them.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use toolpass_protocol::schemas;

const BLESS_HINT: &str = "run `BLESS=1 cargo test -p toolpass-protocol` to update";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

fn render(schema: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap();
    text.push('\n');
    text
}

fn committed_files() -> BTreeSet<String> {
    let Ok(entries) = fs::read_dir(schema_dir()) else {
        return BTreeSet::new();
    };
    entries
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect()
}

#[test]
fn committed_schemas_match_the_types() {
    let dir = schema_dir();
    let generated = schemas();
    let bless = std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let expected: BTreeSet<String> = generated.iter().map(|f| f.file_name.clone()).collect();
    if bless {
        fs::create_dir_all(&dir).unwrap();
        for stale in committed_files().difference(&expected) {
            fs::remove_file(dir.join(stale)).unwrap();
        }
        for file in &generated {
            fs::write(dir.join(&file.file_name), render(&file.schema)).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for file in &generated {
        match fs::read_to_string(dir.join(&file.file_name)) {
            Ok(text) if text == render(&file.schema) => {}
            Ok(_) => problems.push(format!("{} differs from the Rust types", file.file_name)),
            Err(_) => problems.push(format!("{} is missing", file.file_name)),
        }
    }
    for stale in committed_files().difference(&expected) {
        problems.push(format!("{stale} is committed but no type generates it"));
    }
    assert!(
        problems.is_empty(),
        "schemas/ has drifted from the Rust types:\n  {}\n{BLESS_HINT}",
        problems.join("\n  ")
    );
}

#[test]
fn every_method_has_its_schemas() {
    let names: BTreeSet<String> = schemas().into_iter().map(|f| f.file_name).collect();
    for method in [
        "initialize",
        "toolpass.session.open",
        "tools.list",
        "tools.call",
        "toolpass.batch",
        "toolpass.confirm",
        "toolpass.fault",
        "toolpass.session.close",
    ] {
        for part in ["params", "result"] {
            let name = format!("{method}.{part}.json");
            assert!(names.contains(&name), "no schema {name}");
        }
    }
    for notification in ["toolpass.notice", "notifications.message"] {
        assert!(names.contains(&format!("{notification}.params.json")));
    }
    assert!(names.contains("outcome.json"));
}
