//! Scenarios that would lead the runner itself out of its sandbox, fed to
//! `run` past the validator (each is parsed valid, then its link targets
//! are rewritten): the runner's setup, `fs` actions and `expect_files`
//! refuse every escape with a failure naming it, and nothing outside the
//! sandbox is created, changed or printed.
//!
//! Every escape aims at this test's own temporary directory, `victim`,
//! never at anything else: `up` is a link `../..` from the sandbox root,
//! which is the system temporary directory both were created in, so
//! `up/<victim's name>/...` is inside `victim`; `abs` is a link to `victim`
//! itself, `leak` one to the secret file in it.

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::Path;
use std::time::Duration;

use toolpass::run::{RunConfig, ScenarioResult, Verdict};
use toolpass_scenario::{Content, Scenario, parse_str};

use crate::runs::run_all;

/// What `victim/secret.txt` holds; no report may show it.
const SECRET: &str = "toolpass-hostile-secret\n";

/// A scenario with the links `up` and `abs`, more `files` and `steps`,
/// where `{victim}` is the victim directory's name.
fn hostile(id: &str, victim: &Path, files: &str, steps: &str) -> Scenario {
    let name = victim.file_name().unwrap().to_string_lossy();
    let text = format!(
        "title: t\nspec: s\nfiles:\n  up: {{symlink: later}}\n  abs: {{symlink: later}}\n{files}steps:\n{steps}"
    )
    .replace("{victim}", &name);
    let mut scenario = parse_str(&text, id).expect("valid until its links are rewritten");
    for (path, entry) in &mut scenario.files {
        if let Content::Symlink(target) = &mut entry.content {
            target.value = match path.as_str() {
                "up" => "../..".to_owned(),
                "abs" => victim.to_string_lossy().into_owned(),
                _ => victim.join("secret.txt").to_string_lossy().into_owned(),
            };
        }
    }
    scenario
}

/// Every failure text of a result: its reason, each step's failures with
/// their expected and actual texts.
fn texts(result: &ScenarioResult) -> String {
    let mut out = result.reason.clone().unwrap_or_default();
    for step in &result.steps {
        for failure in &step.failures {
            out.push_str(&format!(
                "\n{}: {} | {:?} | {:?}",
                failure.what, failure.message, failure.expected, failure.actual
            ));
        }
    }
    out
}

/// What the victim directory holds: each name with its bytes, mode and
/// modification time.
fn snapshot(victim: &Path) -> Vec<(String, Vec<u8>, u32, i64)> {
    let mut found: Vec<_> = std::fs::read_dir(victim)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            let bytes = std::fs::read(entry.path()).unwrap_or_default();
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, bytes, meta.permissions().mode(), meta.mtime())
        })
        .collect();
    found.sort();
    found
}

pub(crate) async fn a_scenario_past_the_validator_cannot_lead_the_runner_outside() {
    let victim = tempfile::tempdir().unwrap();
    let secret = victim.path().join("secret.txt");
    std::fs::write(&secret, SECRET).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = snapshot(victim.path());

    let fs_steps = [
        ("write", "  - fs: {write: {up/{victim}/new.txt: x}}\n"),
        (
            "write-mode",
            "  - fs: {write: {abs/secret.txt: {text: x, mode: \"777\"}}}\n",
        ),
        (
            "append",
            "  - fs: {append: {up/{victim}/secret.txt: more}}\n",
        ),
        ("chmod", "  - fs: {chmod: {abs/secret.txt: \"777\"}}\n"),
        ("delete", "  - fs: {delete: up/{victim}/secret.txt}\n"),
        ("touch", "  - fs: {touch: {abs/secret.txt: {mtime: 0}}}\n"),
        ("touch-new", "  - fs: {touch: {abs/new.txt: {}}}\n"),
        ("mkdir", "  - fs: {mkdir: up/{victim}/newdir}\n"),
        ("mkdir-abs", "  - fs: {mkdir: abs/newdir}\n"),
        ("symlink", "  - fs: {symlink: {abs/link: secret.txt}}\n"),
    ];
    let mut scenarios: Vec<Scenario> = fs_steps
        .iter()
        .map(|(id, step)| hostile(id, victim.path(), "", step))
        .collect();
    scenarios.push(hostile(
        "expect-files",
        victim.path(),
        "  leak: {symlink: later}\n",
        "  - expect_files:\n      abs/secret.txt: guess\n      up/{victim}/secret.txt: {matches: {contains: guess}}\n      leak: guess\n",
    ));
    // The links come first (`abs` < `up` < `up/...`), so the setup writes
    // through one.
    scenarios.push(hostile(
        "setup",
        victim.path(),
        "  up/{victim}/setup.txt: x\n",
        "  - fs: {mkdir: fine}\n",
    ));

    let config = RunConfig {
        timeout: Duration::from_secs(60),
        ..RunConfig::default()
    };
    let results = run_all("well", &scenarios, config).await;
    for result in &results {
        let texts = texts(result);
        let expected = if result.id == "expect-files" {
            Verdict::Fail
        } else {
            Verdict::Error
        };
        assert_eq!(result.verdict, expected, "{}: {texts}", result.id);
        assert!(
            texts.contains("leads outside the scenario's private directory"),
            "{}: {texts}",
            result.id
        );
        assert!(!texts.contains(SECRET.trim()), "{}: {texts}", result.id);
    }
    assert_eq!(snapshot(victim.path()), before);
}
