//! `toolpass matrix` as a user runs it: two real runs' `--jsonl` reports
//! (the dev reference on a small suite, one run with a failing scenario)
//! rendered into a directory; a broken report is a `file:line` error.
//!
//! `the_page_renders_in_headless_chromium` loads the page in a real browser
//! (Debian's `chromium`; `CHROMIUM=/path` for another) and is ignored by
//! default: `.ci/run` installs chromium and runs it with `--ignored`. Run
//! so where chromium is missing, it says it skipped and passes, unless
//! `CHROMIUM` or `CI` is set: there a missing browser fails it.

#[path = "../common/mod.rs"]
mod common;
mod png;

use std::path::{Path, PathBuf};
use std::process::Command;

use predicates::prelude::*;
use predicates::str::contains;

use common::{toolpass, write};

const PASSES: &str = "title: reads\nspec: read.paging\nfiles: {a.txt: \"hi\\n\"}\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/a.txt\"}\n    expect: {status: success, llm: {contains: hi}}\n";

/// Two runs of a three-scenario suite, `a.jsonl` all passing and
/// `b.jsonl` with `read/second` failing, rendered into `out/`.
fn rendered() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fails = PASSES.replace("contains: hi", "contains: \"<bye> & so\"");
    write(
        dir.path(),
        &[
            ("a/read/first.yaml", PASSES),
            ("a/read/second.yaml", PASSES),
            ("a/top.yaml", PASSES),
            ("b/read/first.yaml", PASSES),
            ("b/read/second.yaml", &fails),
            ("b/top.yaml", PASSES),
        ],
    );
    for run in ["a", "b"] {
        toolpass(
            dir.path(),
            &[
                "run",
                "--scenarios",
                run,
                "--jsonl",
                &format!("{run}.jsonl"),
            ],
        )
        .code(predicate::in_iter([0, 1]));
    }
    toolpass(
        dir.path(),
        &["matrix", "a.jsonl", "b.jsonl", "--out", "out"],
    )
    .success()
    .stdout("3 scenarios × 2 implementations: out\n");
    dir
}

#[test]
fn matrix_writes_the_page_the_table_and_one_badge_per_implementation() {
    let dir = rendered();
    let out = dir.path().join("out");
    let markdown = std::fs::read_to_string(out.join("matrix.md")).unwrap();
    assert!(
        markdown.contains("| `read/second` | required | ✅ | ❌ |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("1 of 3 scenarios does not pass everywhere"),
        "{markdown}"
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("&lt;bye&gt; &amp; so"),
        "the failure's diff, escaped"
    );
    let badges: Vec<String> = std::fs::read_dir(out.join("badges"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // A shields.io endpoint JSON and a static SVG per implementation.
    assert_eq!(badges.len(), 4, "{badges:?}");
    let badge: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("badges/toolpass-reference-b.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(badge["message"], "2/3 required");
    assert_eq!(badge["color"], "red");
    let svg = std::fs::read_to_string(out.join("badges/toolpass-reference-b.svg")).unwrap();
    assert!(svg.contains(">2/3 required</text>"), "{svg}");
}

#[test]
fn a_broken_report_is_named_with_its_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("bad.jsonl", "{\"type\":\"step\"}\n")]);
    toolpass(dir.path(), &["matrix", "bad.jsonl", "--out", "out"])
        .code(2)
        .stderr(contains("bad.jsonl:1: the first line must be the `header`"));
    assert!(!dir.path().join("out").exists());
}

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("chromium"), PathBuf::from)
}

/// Whether the browser can be started; when it cannot, either the test
/// is skipped (a machine without chromium) or, where it was asked for,
/// fails.
#[allow(clippy::print_stderr)] // The one line a run without chromium shows for this test.
fn chromium_present() -> bool {
    let found = Command::new(chromium()).arg("--version").output().is_ok();
    let required = std::env::var_os("CHROMIUM").is_some() || std::env::var_os("CI").is_some();
    assert!(
        found || !required,
        "{} does not start (CHROMIUM or CI is set, so it must)",
        chromium().display()
    );
    if !found {
        eprintln!(
            "skipped: {} is not installed (Debian's `chromium`, or set CHROMIUM=/path)",
            chromium().display()
        );
    }
    found
}

/// Runs headless chromium on `page` with `args`: its stdout.
fn browse(page: &Path, profile: &Path, args: &[&str]) -> String {
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Exact colours in the screenshot: no display profile applied.
            "--force-color-profile=srgb",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The texts of the heatmap cell whose `aria-label` is `label`, as the
/// browser parsed them.
fn cell_texts<'a>(dom: &'a str, label: &str) -> Vec<&'a str> {
    let start = dom
        .find(&format!("aria-label=\"{label}\""))
        .unwrap_or_else(|| panic!("no heatmap cell {label:?} in {dom}"));
    let cell = &dom[start..];
    let cell = &cell[..cell.find("</g>").unwrap()];
    cell.split("<text")
        .skip(1)
        .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
        .collect()
}

#[test]
#[ignore = "needs chromium; .ci/run installs it and runs this with --ignored"]
fn the_page_renders_in_headless_chromium() {
    if !chromium_present() {
        return;
    }
    let dir = rendered();
    let page = dir.path().join("out/index.html");
    let profile = dir.path().join("profile");
    // The DOM as the browser parsed it: every table and every failure's
    // anchor made it through, and each failing cell's link has its target.
    let dom = browse(&page, &profile, &["--dump-dom"]);
    // Where they differ, scores, by area, all scenarios.
    assert_eq!(dom.matches("<table>").count(), 4, "{dom}");
    assert!(dom.contains("<tr id=\"row_read-second\">"), "{dom}");
    let links: Vec<&str> = dom
        .split("href=\"#")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    assert!(!links.is_empty(), "{dom}");
    for link in links {
        assert!(
            dom.contains(&format!("id=\"{link}\"")),
            "#{link} has no target"
        );
    }
    // The heatmap's cells carry their numbers: `a` passes both `read`
    // scenarios, `b` one; neither has one tagged safety.
    let (a, b) = ("toolpass-reference (a)", "toolpass-reference (b)");
    for (label, texts) in [
        (
            format!("read, {a}: 2 of 2 required scenarios passed (100 %)"),
            ["2/2", "100 %"],
        ),
        (
            format!("read, {b}: 1 of 2 required scenarios passed (50 %)"),
            ["1/2", "50 %"],
        ),
        (
            format!("required, all areas, {b}: 2 of 3 required scenarios passed (66 %)"),
            ["2/3", "66 %"],
        ),
        (
            format!("safety profile, {a}: no safety scenario judged"),
            ["–", "none judged"],
        ),
    ] {
        assert_eq!(cell_texts(&dom, &label), texts, "{label}");
    }
    // And it paints: a PNG of the requested size, kept beside the page,
    // with the heatmap's bands on it: four cells at 100 % and two in the
    // 50–74 % band (`b`'s `read` and its whole run), a few thousand pixels
    // each less their numbers (and a legend swatch of each band).
    let shot = dir.path().join("out/matrix.png");
    browse(
        &page,
        &profile,
        &[
            "--window-size=1200,900",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let image = png::decode(&std::fs::read(&shot).unwrap()).unwrap();
    assert_eq!((image.width, image.height), (1200, 900));
    let full = image.count("#d9f0d3");
    let half = image.count("#fe9929");
    assert!(half > 2 * 2000, "{half} pixels of the 50–74 % band");
    assert!(
        (3 * half..5 * half).contains(&(2 * full)),
        "{full} pixels of the 100 % band, {half} of the 50–74 %: not two cells to one"
    );
}
