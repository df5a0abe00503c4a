//! The heatmap's numbers, cell texts and colours, and "Where they differ",
//! on two hand-made runs: `a` passes 3 of the 4 required `edit` scenarios,
//! `b` all 4; both fail a recommended one there (not in the share); `a`
//! skips both required `shell` scenarios, `b` never ran them; `notes`
//! has recommended scenarios only.

use super::*;
use crate::report::Score;
use crate::report::fixture::{read_back, scenario, step};
use crate::run::Failure;
use heat::{AreaCell, percent};

fn judged(id: &str, level: Level, verdict: Verdict) -> ScenarioResult {
    let failures = if verdict == Verdict::Pass {
        Vec::new()
    } else {
        vec![Failure::new("status", "expected success, got error")]
    };
    scenario(
        id,
        level,
        verdict,
        vec![step(1, 4, "call edit", verdict, failures)],
    )
}

fn run(name: &str, edit_three: Verdict, shell: bool) -> ReadReport {
    let mut results = vec![
        judged("edit/one", Level::Required, Verdict::Pass),
        judged("edit/two", Level::Required, Verdict::Pass),
        judged("edit/three", Level::Required, edit_three),
        judged("edit/four", Level::Required, Verdict::Pass),
        judged("edit/prose", Level::Recommended, Verdict::Fail),
        judged("notes/wording", Level::Recommended, Verdict::Pass),
    ];
    if shell {
        for id in ["shell/pty", "shell/cancel"] {
            results.push(scenario(id, Level::Required, Verdict::Skip, Vec::new()));
        }
    }
    results.sort_by(|x, y| x.id.cmp(&y.id));
    let mut report = read_back(&format!("{name}.jsonl"), &results);
    report.header.implementation.name = name.into();
    report
}

fn matrix() -> Matrix {
    Matrix::new(&[
        run("a", Verdict::Fail, true),
        run("b", Verdict::Pass, false),
    ])
}

#[test]
fn a_cell_is_the_share_of_required_scenarios_passed_recommended_ones_aside() {
    let matrix = matrix();
    let (a, b) = (&matrix.columns[0], &matrix.columns[1]);
    assert_eq!(
        a.heat("edit"),
        AreaCell::Scored(Score {
            passed: 3,
            total: 4
        })
    );
    assert_eq!(
        b.heat("edit"),
        AreaCell::Scored(Score {
            passed: 4,
            total: 4
        })
    );
    assert_eq!(
        a.heat("edit").lines(),
        ("3/4".to_owned(), "75 %".to_owned())
    );
    assert_eq!(b.heat("edit").text(), "4/4 (100 %)");
    assert_eq!(
        a.heat("edit").describe("required"),
        "3 of 4 required scenarios passed (75 %)"
    );
    // Skipped everywhere it ran, not run at all, recommended only: no share.
    assert_eq!(a.heat("shell"), AreaCell::Skipped(2));
    assert_eq!(b.heat("shell"), AreaCell::NotRun);
    assert_eq!(a.heat("notes"), AreaCell::NoRequired);
    for cell in [a.heat("shell"), b.heat("shell"), a.heat("notes")] {
        assert_eq!(cell.text(), "–");
        assert_eq!(cell.score(), None);
    }
    assert_eq!(a.heat("shell").lines().1, "skipped");
    assert_eq!(b.heat("shell").describe("required"), "not run");
    assert_eq!(
        a.heat("shell").describe("required"),
        "all 2 required scenarios skipped"
    );
}

#[test]
fn an_expected_failure_is_not_a_pass_and_shares_round_down() {
    let matrix = Matrix::new(&[run("a", Verdict::Xfail, false)]);
    assert_eq!(matrix.columns[0].heat("edit").text(), "3/4 (75 %)");
    let share = |passed, total| percent(Score { passed, total });
    assert_eq!(share(439, 440), 99, "only a full pass reads 100");
    assert_eq!(share(2, 3), 66);
    assert_eq!(share(0, 0), 0);
}

/// `page` with every all-digit attribute value (a position or a size,
/// which vary with the labels' widths) written `{}`.
fn without_numbers(page: &str) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(at) = rest.find("=\"") {
        let (head, tail) = rest.split_at(at + 2);
        out.push_str(head);
        let end = tail.find('"').unwrap();
        let value = &tail[..end];
        if !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()) {
            out.push_str("{}");
        } else {
            out.push_str(value);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_page_draws_each_cell_with_its_numbers_words_and_band() {
    let page = html::render(&matrix());
    let drawn = without_numbers(&page);
    // `a`'s edit cell links to the area's rows in "Where they differ" (its
    // edit/three fails where `b`'s passes).
    for (label, fill, count, share, link) in [
        (
            "edit, a: 3 of 4 required scenarios passed (75 %)",
            "#fec44f",
            "3/4",
            "75 %",
            true,
        ),
        (
            "edit, b: 4 of 4 required scenarios passed (100 %)",
            "#d9f0d3",
            "4/4",
            "100 %",
            true,
        ),
        (
            "shell, a: all 2 required scenarios skipped",
            "url(#heat-none)",
            "–",
            "skipped",
            false,
        ),
        (
            "shell, b: not run",
            "url(#heat-none)",
            "–",
            "not run",
            false,
        ),
        (
            "notes, a: no required scenario judged",
            "url(#heat-none)",
            "–",
            "none judged",
            false,
        ),
    ] {
        let cell = format!(
            "<g class=\"cell\" role=\"img\" aria-label=\"{label}\"><title>{label}</title>\
             <rect x=\"{{}}\" y=\"{{}}\" width=\"{{}}\" height=\"{{}}\" fill=\"{fill}\"/>\
             <text class=\"count\" x=\"{{}}\" y=\"{{}}\">{count}</text>\
             <text class=\"share\" x=\"{{}}\" y=\"{{}}\" text-anchor=\"end\">{share}</text></g>"
        );
        let expected = if link {
            format!("<a href=\"#differ_edit\">{cell}</a>\n")
        } else {
            format!("\n{cell}\n")
        };
        assert!(drawn.contains(&expected), "{expected}: {drawn}");
    }
    // The whole run's required score and the safety profile's, side by
    // side above the areas; nothing here is tagged safety.
    for expected in [
        "aria-label=\"required, all areas, a: 3 of 4 required scenarios passed (75 %)\"",
        "aria-label=\"required, all areas, b: 4 of 4 required scenarios passed (100 %)\"",
        "aria-label=\"safety profile, b: no safety scenario judged\"",
    ] {
        assert!(page.contains(expected), "{expected}: {page}");
    }
    // Every number band has its legend entry.
    assert!(
        page.contains(
            "<span style=\"background:#d9f0d3\">100 %</span>\
                       <span style=\"background:#fee391\">90–99 %</span>"
        ),
        "{page}"
    );
}

#[test]
fn where_they_differ_lists_rows_with_unequal_verdicts_skips_aside() {
    let matrix = matrix();
    let differing: Vec<&str> = matrix
        .rows
        .iter()
        .filter(|r| Matrix::verdicts_differ(r))
        .map(|r| r.id.as_str())
        .collect();
    // edit/prose fails in both; shell's are skipped by one, not run by the other.
    assert_eq!(differing, ["edit/three"]);
    let page = html::render(&matrix);
    let section =
        &page[page.find("<h2 id=\"differ\">").unwrap()..page.find("<h2 id=\"scores\">").unwrap()];
    assert!(
        section.contains("<p>1 of 8 scenarios: the implementations that judged it"),
        "{section}"
    );
    assert!(
        section.contains("<tr class=\"group\" id=\"differ_edit\"><th colspan=\"4\">edit</th></tr>"),
        "{section}"
    );
    assert!(
        section.contains("<a href=\"#a--edit-three\">fail</a>"),
        "a failure is one click from its report: {section}"
    );
    assert!(!section.contains("edit/prose"), "{section}");
    assert!(
        section.contains("<thead><tr><th>scenario</th>"),
        "sticky: {section}"
    );

    // A listed difference differs from an unlisted one; one run compares nothing.
    let listed = Matrix::new(&[
        run("a", Verdict::Fail, false),
        run("b", Verdict::Xfail, false),
    ]);
    assert!(
        listed
            .rows
            .iter()
            .any(|r| r.id == "edit/three" && Matrix::verdicts_differ(r))
    );
    let alone = html::render(&Matrix::new(&[run("a", Verdict::Fail, false)]));
    assert!(alone.contains("<p>One implementation: nothing to compare.</p>"));
}

#[test]
fn the_markdown_has_the_heatmap_in_numbers() {
    let text = markdown::render(&matrix());
    for row in [
        "| `edit` | 3/4 (75 %) | 4/4 (100 %) |\n",
        "| `notes` | – | – |\n",
        "| `shell` | – | – |\n",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
}
