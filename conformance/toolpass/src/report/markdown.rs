//! `--markdown`: a summary for a CI step summary (`$GITHUB_STEP_SUMMARY`):
//! a header line with the implementation and the outcome, the levels'
//! scores, the verdict counts, why the run fails, a table of the scenarios
//! that did not pass, and each failure's diff folded in `<details>`.

use std::fmt::Write as _;

use super::text::{self, actual_heading, diff_lines, excerpt, printable_line};
use super::{Report, first_failure, headline, location, rfc3339};
use crate::run::{ScenarioResult, Verdict};

/// Longest first failure shown in the table, in characters.
const MESSAGE_CHARS: usize = 120;

/// Most `<details>` blocks: a step summary page is capped at 1 MiB.
const MAX_DETAILS: usize = 30;

/// The report as GitHub-flavoured Markdown.
pub fn render(report: &Report<'_>) -> String {
    let summary = report.summary;
    let implementation = &report.info.implementation;
    let outcome = if summary.passed() {
        "✅ ok"
    } else {
        "❌ FAILED"
    };
    let mut out = format!(
        "## toolpass: {} {} — {outcome}\n\n",
        text(&implementation.name),
        text(&implementation.version)
    );
    let _ = writeln!(
        out,
        "{} in {:.2} s against {}, started {}\n",
        text::scenario_count(summary),
        summary.duration.as_secs_f64(),
        code(&implementation.command),
        rfc3339(report.info.started)
    );
    if report.results.is_empty() {
        out.push_str("No scenario ran.\n");
        return out;
    }
    out.push_str("| level | passed | total |\n|:--|--:|--:|\n");
    for (level, score) in &summary.levels {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            level.as_str(),
            score.passed,
            score.total
        );
    }
    if summary.pending > 0 {
        let _ = writeln!(out, "| pending (not scored) | | {} |", summary.pending);
    }
    out.push_str("\n| verdict | scenarios |\n|:--|--:|\n");
    for (verdict, count) in &summary.verdicts {
        let _ = writeln!(out, "| {} | {count} |", verdict.as_str());
    }
    if !summary.skips.is_empty() {
        out.push_str("\n**Skipped**\n\n");
        for group in &summary.skips {
            let _ = writeln!(out, "- {}", text(&group.to_string()));
        }
    }
    if !summary.problems.is_empty() {
        out.push_str("\n**Why it fails**\n\n");
        for problem in &summary.problems {
            let _ = writeln!(out, "- {}", text(problem));
        }
    }
    let others: Vec<&ScenarioResult> = report
        .results
        .iter()
        .filter(|r| r.verdict != Verdict::Pass)
        .collect();
    if !others.is_empty() {
        out.push_str(&table(&others, super::repeated(report.results)));
        out.push_str(&details(&others));
    }
    out
}

/// The table of the scenarios that did not pass.
fn table(results: &[&ScenarioResult], repeated: bool) -> String {
    let mut out = String::from(
        "\n### Not passing\n\n| scenario | level | verdict | first failure | at |\n\
         |:--|:--|:--|:--|:--|\n",
    );
    for result in results {
        let level = result.failed_level().unwrap_or(result.level);
        let at = match first_failure(result) {
            Some((step, _)) => location(result, step),
            None => text::file_name(result),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            code(&super::result_name(result, repeated)),
            level.as_str(),
            result.verdict.as_str(),
            text(&truncate(&headline(result), MESSAGE_CHARS)),
            code(&at)
        );
    }
    out
}

/// A `<details>` block per failure with a diff or an actual text, and per
/// stderr tail.
fn details(results: &[&ScenarioResult]) -> String {
    let mut blocks = Vec::new();
    for result in results {
        for step in result.failed_steps() {
            let at = format!("<code>{}</code> step {}", html(&result.id), step.index);
            for failure in &step.failures {
                let headline = truncate(&failure.headline(), MESSAGE_CHARS);
                let summary = format!("{at}: {}", html(&headline));
                match (&failure.expected, &failure.actual) {
                    (Some(expected), Some(actual)) => {
                        let lines: Vec<String> = diff_lines(expected, actual)
                            .into_iter()
                            .map(|(_, line)| line)
                            .collect();
                        blocks.push(fold(&summary, "diff", &lines.join("\n")));
                    }
                    (None, Some(actual)) => {
                        let body =
                            format!("{}\n{}", actual_heading(actual), excerpt(actual).join("\n"));
                        blocks.push(fold(&summary, "text", &body));
                    }
                    _ => {}
                }
            }
            let tail = step.stderr_tail.trim_end();
            if !tail.is_empty() {
                let summary = format!("{at}: stderr (tail)");
                blocks.push(fold(&summary, "text", &super::text::visible(tail)));
            }
        }
    }
    let mut out = String::new();
    let total = blocks.len();
    for block in blocks.into_iter().take(MAX_DETAILS) {
        out.push_str(&block);
    }
    if total > MAX_DETAILS {
        let _ = writeln!(out, "\n{} more in the text report.", total - MAX_DETAILS);
    }
    out
}

/// A folded block: `summary` (inline HTML) over a fenced code block.
fn fold(summary: &str, language: &str, body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "\n<details><summary>{summary}</summary>\n\n{fence}{language}\n{body}\n{fence}\n\n</details>\n"
    )
}

/// Plain text as one line of Markdown, fit for a table cell: line breaks
/// as spaces, other control characters escaped ([`printable_line`]), and
/// the characters Markdown or HTML would act on (pipes,
/// backticks, emphasis, links, tags, entities) escaped with a backslash.
pub(crate) fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in one_line(text).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A one-line code span, fit for a table cell. Backticks become `'`: ids,
/// paths and command lines seldom have one.
pub(crate) fn code(text: &str) -> String {
    let text = one_line(text).replace('`', "'");
    format!("`{}`", text.replace('|', "\\|"))
}

/// Text for inline HTML (a `<summary>`): one line, `<`, `>` and `&` as
/// entities.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in one_line(text).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` on one line: line breaks as spaces, other control characters
/// escaped.
fn one_line(text: &str) -> String {
    printable_line(&text.replace(['\r', '\n'], " "))
}

/// At most `max` characters of `text`, with `…` when cut.
fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    #[test]
    fn a_failing_run_with_every_verdict() {
        insta::assert_snapshot!(fixture::render(render));
    }

    #[test]
    fn an_empty_run_says_so() {
        let text = fixture::render_results(&[], render);
        assert!(text.ends_with("2026-12-02T17:51:50Z\n\nNo scenario ran.\n"));
    }

    #[test]
    fn a_passing_run_has_no_table_of_failures() {
        let results: Vec<_> = fixture::results()
            .into_iter()
            .filter(|r| r.verdict == Verdict::Pass)
            .collect();
        insta::assert_snapshot!(fixture::render_results(&results, render));
    }

    #[test]
    fn cells_are_one_line_without_pipes_or_html() {
        assert_eq!(
            text("a | b\nc <d> & `e` *f*"),
            r"a \| b c \<d\> \& \`e\` \*f\*"
        );
        assert_eq!(code("a|b`c\nd"), r"`a\|b'c d`");
        assert_eq!(html("<b>\n&"), "&lt;b&gt; &amp;");
        assert_eq!(truncate("ééé", 2), "éé…");
        assert_eq!(truncate("éé", 2), "éé");
    }

    #[test]
    fn a_fence_is_longer_than_any_backtick_run_in_its_body() {
        assert!(fold("s", "text", "a ``` b").contains("\n````text\na ``` b\n````\n"));
        assert!(fold("s", "text", "plain").contains("\n```text\nplain\n```\n"));
    }
}
