//! The matrix on the fixture run (every verdict), written by the real
//! JSONL writer and read back, beside a second implementation's run that
//! passes more and ran fewer scenarios.

mod heatmap;

use std::collections::BTreeSet;

use super::*;
use crate::report::Score;
use crate::report::fixture;
use crate::report::read::ReadReport;

/// The fixture run with three scenarios in the safety profile: one that
/// fails, one that passes, one skipped (not scored).
fn with_safety() -> Vec<ScenarioResult> {
    let mut results = fixture::results();
    for result in &mut results {
        if ["edit/crlf", "edit/fuzzy/curly", "mcp/fault"].contains(&result.id.as_str()) {
            result.tags.push(SAFETY_TAG.into());
        }
    }
    results
}

fn reference() -> ReadReport {
    fixture::read_back("reference.jsonl", &with_safety())
}

/// A peer that passes `edit/crlf` and never ran `shell/hang`.
fn peer() -> ReadReport {
    let mut results = with_safety();
    results.retain(|r| r.id != "shell/hang");
    let crlf = results.iter_mut().find(|r| r.id == "edit/crlf").unwrap();
    crlf.verdict = Verdict::Pass;
    for step in &mut crlf.steps {
        step.verdict = Verdict::Pass;
        step.failures.clear();
    }
    let mut report = fixture::read_back("peer.jsonl", &results);
    report.header.implementation.name = "some peer".into();
    report
}

fn verdict(matrix: &Matrix, id: &str, column: usize) -> Option<Verdict> {
    let row = matrix.rows.iter().find(|r| r.id == id).unwrap();
    row.cells[column].as_ref().map(|c| c.verdict)
}

#[test]
fn rows_are_every_id_of_any_report_and_cells_what_each_run_recorded() {
    let matrix = Matrix::new(&[reference(), peer()]);
    let labels: Vec<&str> = matrix.columns.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["toolpass-reference", "some peer"]);
    assert_eq!(matrix.columns[1].slug, "some-peer");
    assert_eq!(matrix.rows.len(), fixture::results().len());
    assert_eq!(verdict(&matrix, "edit/crlf", 0), Some(Verdict::Fail));
    assert_eq!(verdict(&matrix, "edit/crlf", 1), Some(Verdict::Pass));
    assert_eq!(verdict(&matrix, "shell/hang", 1), None);
    let crlf = matrix.rows.iter().find(|r| r.id == "edit/crlf").unwrap();
    assert_eq!(crlf.area, "edit");
    assert!(
        crlf.cells[0]
            .as_ref()
            .unwrap()
            .detail
            .contains("files[src/a.txt]")
    );
    assert!(crlf.cells[1].as_ref().unwrap().detail.is_empty());
}

#[test]
fn scores_are_per_level_and_per_area_like_a_run_summary() {
    let matrix = Matrix::new(&[reference(), peer()]);
    let required = |column: &Column| column.summary.levels[&Level::Required];
    assert_eq!(
        required(&matrix.columns[1]).passed,
        required(&matrix.columns[0]).passed + 1
    );
    let areas: BTreeSet<&str> = matrix.areas();
    assert!(areas.contains("edit") && areas.contains("edit/fuzzy") && areas.contains("shell"));
    assert_eq!(matrix.columns[0].areas["shell"].count(Verdict::Timeout), 1);
    assert_eq!(matrix.columns[1].areas["shell"].count(Verdict::Timeout), 0);
}

#[test]
fn the_safety_score_counts_safety_scenarios_judged_and_passed() {
    let matrix = Matrix::new(&[reference(), peer()]);
    let scores: Vec<(usize, usize)> = matrix
        .columns
        .iter()
        .map(|c| (c.safety.passed, c.safety.total))
        .collect();
    assert_eq!(scores, [(1, 2), (2, 2)]);
    // An expected failure is no pass of the profile, a pending scenario is
    // not scored, and nothing tagged gives an empty score.
    let mut results = with_safety();
    for result in &mut results {
        match result.id.as_str() {
            "edit/fuzzy/curly" => result.verdict = Verdict::Xfail,
            "edit/crlf" => result.level = Level::Pending,
            _ => {}
        }
    }
    assert_eq!(
        safety_score(&results),
        Score {
            passed: 0,
            total: 1
        }
    );
    assert_eq!(safety_score(&fixture::results()), Score::default());
}

#[test]
fn two_reports_of_one_implementation_are_told_apart_by_file() {
    let matrix = Matrix::new(&[
        reference(),
        fixture::read_back("again.jsonl", &fixture::results()),
    ]);
    assert_eq!(matrix.columns[0].label, "toolpass-reference (reference)");
    assert_eq!(matrix.columns[1].label, "toolpass-reference (again)");
    assert_ne!(matrix.columns[0].slug, matrix.columns[1].slug);
}

#[test]
fn the_page_is_self_contained_and_every_failing_cell_links_to_its_report() {
    let page = html::render(&Matrix::new(&[reference(), peer()]));
    for banned in [
        "http://", "https://", "<script", "<link", " src=", "@import",
    ] {
        assert!(!page.contains(banned), "the page loads something: {banned}");
    }
    // `url(` only for the heatmap's own pattern, defined on the page.
    assert!(
        page.split("url(")
            .skip(1)
            .all(|s| s.starts_with("#heat-none)")),
        "the page loads something: url("
    );
    let ids: BTreeSet<&str> = page
        .split("id=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    let links: Vec<&str> = page
        .split("href=\"#")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    assert!(links.len() > 5, "{links:?}");
    for link in links {
        assert!(ids.contains(link), "#{link} has no target");
    }
    // Failure text is escaped: the fixture's crash tail has `<index> & "bounds"`.
    assert!(page.contains("&lt;index&gt; &amp;"), "unescaped detail");
    assert!(!page.contains("<index>"));
    assert!(
        page.contains("<td class=\"none\">–</td>"),
        "a scenario one run did not select"
    );
    assert!(
        page.contains(
            "safety profile</th><td class=\"n\">1/2 <small>(50 %)</small></td>\
             <td class=\"n\">2/2 <small>(100 %)</small></td></tr>"
        ),
        "the safety score beside the levels"
    );
}

#[test]
fn the_markdown_lists_scores_areas_and_only_the_rows_that_do_not_pass_everywhere() {
    let text = markdown::render(&Matrix::new(&[reference(), peer()]));
    assert!(
        text.starts_with("| level | toolpass-reference 0.1.0 | some peer 0.1.0 |\n|:--|--:|--:|\n"),
        "{text}"
    );
    assert!(
        text.contains("| `edit/fuzzy` | 1/1 (100 %) | 1/1 (100 %) |"),
        "{text}"
    );
    assert!(
        !text.contains("| `edit/fuzzy/curly` |"),
        "a row that passes everywhere: {text}"
    );
    assert!(
        text.contains("| `edit/crlf` | required | ❌ | ✅ |"),
        "{text}"
    );
    assert!(
        text.contains("| `shell/hang` | recommended | 💥 | – |"),
        "{text}"
    );
    assert!(text.contains("| safety profile | 1/2 | 2/2 |\n"), "{text}");
    // Skipped everywhere it ran: not judged, so not listed.
    assert!(!text.contains("| `mcp/fault` |"), "{text}");
}

#[test]
fn a_badge_says_the_required_score_and_the_skips_in_a_colour_by_threshold() {
    let matrix = Matrix::new(&[reference()]);
    let made = badge::badge(&matrix.columns[0]);
    let required = matrix.columns[0].summary.levels[&Level::Required];
    assert_eq!(made.schema_version, 1);
    assert_eq!(made.label, "toolpass · toolpass-reference");
    assert_eq!(
        made.message,
        format!(
            "{}/{} required, safety 1/2, 1 skipped",
            required.passed, required.total
        )
    );
    assert_eq!(made.color, "red");
    let json = serde_json::to_value(&made).unwrap();
    assert_eq!(json["schemaVersion"], 1);
    assert!(json.get("namedLogo").is_none());
}

#[test]
fn the_svg_badge_carries_the_score_escaped_in_its_colour() {
    let matrix = Matrix::new(&[reference()]);
    let made = badge::badge(&matrix.columns[0]);
    let svg = badge::svg(&made);
    let required = matrix.columns[0].summary.levels[&Level::Required];
    let score = format!("{}/{} required", required.passed, required.total);
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(
        svg.contains(&format!("<title>toolpass · toolpass-reference: {score}")),
        "{svg}"
    );
    assert!(
        svg.contains(&format!(">{score}, safety 1/2, 1 skipped</text>")),
        "{svg}"
    );
    assert!(svg.contains("fill=\"#e05d44\""), "red: {svg}");

    // A label is a server's own name: markup in it stays text.
    let hostile = badge::Badge {
        label: "<script>&".to_owned(),
        color: "brightgreen",
        ..made
    };
    let svg = badge::svg(&hostile);
    assert!(svg.contains(">&lt;script&gt;&amp;</text>"), "{svg}");
    assert!(!svg.contains("<script>"), "{svg}");
    assert!(svg.contains("fill=\"#4c1\""), "{svg}");
    // Wider text, a wider badge.
    let width = |svg: &str| -> u32 {
        let rest = svg.split("width=\"").nth(1).unwrap();
        rest.split('"').next().unwrap().parse().unwrap()
    };
    let longer = badge::Badge {
        message: format!("{} and more", hostile.message),
        ..hostile.clone()
    };
    assert!(width(&badge::svg(&longer)) > width(&svg));
}

#[test]
fn slugs_keep_letters_and_digits_and_fold_the_rest() {
    assert_eq!(slug("Qwen Code 0.24.4"), "qwen-code-0-24-4");
    assert_eq!(slug("edit/fuzzy/curly"), "edit-fuzzy-curly");
    assert_eq!(slug("--a__b--"), "a-b");
    assert_eq!(area("README"), "(top level)");
}
