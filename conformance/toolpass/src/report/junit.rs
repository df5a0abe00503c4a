//! `--junit`: JUnit XML for CI test tabs. One `<testsuite>` per area (the
//! first segment of the id), one `<testcase>` per scenario result.
//!
//! A test case fails exactly when the exit code counts it, so a CI tab is
//! red exactly when the run is: a required-level fail and an xpass are
//! `<failure>`s, a required-level error, timeout, crash or protocol_error
//! an `<error>`, each with the text report's block as its body. A failure
//! at another level is scored but leaves the exit code alone: it passes,
//! its level and verdict as `<properties>` and the block as `<system-out>`;
//! so do an xfail and a failing pending scenario (run, not scored). A skip
//! is `<skipped>` with its reason. The run's other problems (expected-failure
//! entries that fail differently, were skipped or name no scenario;
//! nondeterministic repetitions) are a `<failure>` each in a last suite,
//! `toolpass`.
//! Times are in seconds: each suite's is the sum of its scenarios', the
//! whole run's is its wall time (workers run in parallel).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use toolpass_scenario::Level;

use super::summary::run_failure;
use super::text::{self, Style, push_code};
use super::{Report, rfc3339};
use crate::run::{ScenarioResult, Verdict};

/// The report as an XML document.
pub fn render(report: &Report<'_>) -> String {
    let repeated = super::repeated(report.results);
    let mut areas: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
    for result in report.results {
        areas
            .entry(super::area(&result.id))
            .or_default()
            .push(result);
    }
    let timestamp = rfc3339(report.info.started);
    let implementation = &report.info.implementation;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let name = format!(
        "toolpass: {} {}",
        implementation.name, implementation.version
    );
    let others = report
        .summary
        .problems
        .get(..report.summary.other_problems)
        .unwrap_or_default();
    let mut counts = Counts::of(report.results.iter());
    counts.tests += others.len();
    counts.failures += others.len();
    counts.time = report.summary.duration;
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\"{}>",
        escape(&name, true),
        counts.attributes()
    );
    for (area, results) in areas {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" timestamp=\"{timestamp}\"{}>",
            escape(area, true),
            Counts::of(results.iter().copied()).attributes()
        );
        for result in results {
            out.push_str(&testcase(result, area, repeated));
        }
        out.push_str("  </testsuite>\n");
    }
    if !others.is_empty() {
        out.push_str(&problems_suite(others, &timestamp));
    }
    out.push_str("</testsuites>\n");
    out
}

/// The suite of the run's problems that are no result's own failure, a
/// test case each, named by the problem's subject (`file:line:col` of an
/// expected-failures entry, or the scenario id).
fn problems_suite(problems: &[String], timestamp: &str) -> String {
    let mut out = format!(
        "  <testsuite name=\"toolpass\" timestamp=\"{timestamp}\" tests=\"{0}\" failures=\"{0}\" \
         errors=\"0\" skipped=\"0\" time=\"0.000\">\n",
        problems.len()
    );
    for problem in problems {
        let subject = problem.split(": ").next().unwrap_or(problem);
        let _ = write!(
            out,
            "    <testcase classname=\"toolpass\" name=\"{}\" time=\"0.000\">\n      \
             <failure message=\"{}\" type=\"problem\"/>\n    </testcase>\n",
            escape(subject, true),
            escape(problem, true)
        );
    }
    out.push_str("  </testsuite>\n");
    out
}

/// The tallies a `<testsuites>` or `<testsuite>` carries.
#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    time: Duration,
}

impl Counts {
    fn of<'a>(results: impl Iterator<Item = &'a ScenarioResult>) -> Counts {
        let mut counts = Counts::default();
        for result in results {
            counts.tests += 1;
            counts.time += result.duration;
            match Kind::of(result) {
                Kind::Failure => counts.failures += 1,
                Kind::Error => counts.errors += 1,
                Kind::Skipped => counts.skipped += 1,
                Kind::Passed => {}
            }
        }
        counts
    }

    fn attributes(&self) -> String {
        format!(
            " tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\"",
            self.tests,
            self.failures,
            self.errors,
            self.skipped,
            seconds(self.time)
        )
    }
}

/// How JUnit sees a verdict.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Passed,
    Failure,
    Error,
    Skipped,
}

impl Kind {
    /// What the exit code makes of the result ([`run_failure`]: a
    /// required-level failure or an xpass), then which element says so.
    fn of(result: &ScenarioResult) -> Kind {
        if result.verdict == Verdict::Skip {
            return Kind::Skipped;
        }
        if result.level == Level::Pending || run_failure(result).is_none() {
            return Kind::Passed;
        }
        match result.verdict {
            Verdict::Fail | Verdict::Xpass => Kind::Failure,
            _ => Kind::Error,
        }
    }
}

fn testcase(result: &ScenarioResult, area: &str, repeated: bool) -> String {
    let mut out = format!(
        "    <testcase classname=\"{}\" name=\"{}\"",
        escape(area, true),
        escape(&super::result_name(result, repeated), true)
    );
    if result.path.is_some() {
        let _ = write!(out, " file=\"{}\"", escape(&text::file_name(result), true));
    }
    let _ = write!(out, " time=\"{}\"", seconds(result.duration));
    let message = escape(&super::headline(result), true);
    let block = || escape(&text::scenario(result, Style::new(false)), false);
    let element = match Kind::of(result) {
        Kind::Passed if result.verdict == Verdict::Pass => return out + "/>\n",
        Kind::Passed => {
            let level = result.failed_level().unwrap_or(result.level);
            let note = if result.verdict == Verdict::Xfail {
                "expected failure (listed)".to_owned()
            } else if result.level == Level::Pending {
                "pending scenario (not scored)".to_owned()
            } else {
                format!(
                    "{} at {} level (scored; only required failures fail the run)",
                    result.verdict.as_str(),
                    level.as_str()
                )
            };
            format!(
                "<properties><property name=\"level\" value=\"{}\"/><property name=\"verdict\" \
                 value=\"{}\"/></properties>\n      <system-out>{note}:\n{}</system-out>",
                level.as_str(),
                result.verdict.as_str(),
                block()
            )
        }
        Kind::Skipped => format!("<skipped message=\"{message}\"/>"),
        kind => {
            let name = if kind == Kind::Failure {
                "failure"
            } else {
                "error"
            };
            format!(
                "<{name} message=\"{message}\" type=\"{}\">{}</{name}>",
                result.verdict.as_str(),
                block()
            )
        }
    };
    let _ = write!(out, ">\n      {element}\n    </testcase>\n");
    out
}

fn seconds(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64())
}

/// `text` as XML character data, or as an attribute value (where line
/// breaks and tabs are kept as character references). Characters XML 1.0
/// cannot carry at all (most C0 controls, such as the ESC of a coloured
/// stderr tail) are written as `\u{1b}`. The HTML matrix uses it too: it is valid HTML5.
pub(crate) fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' | '\t' if attribute => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            '\n' | '\t' => out.push(c),
            // C0, DEL and C1 (which XML 1.0 forbids or a browser might act
            // on) and the two non-characters, as the text report writes them.
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => push_code(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    /// An element as the checker saw it open: its name and attributes.
    #[derive(Debug)]
    struct Element {
        name: String,
        attributes: Vec<(String, String)>,
    }

    impl Element {
        fn get(&self, name: &str) -> &str {
            let found = self.attributes.iter().find(|(n, _)| n == name);
            found.map_or("", |(_, v)| v)
        }
    }

    /// A small well-formedness check, enough for what [`render`] writes: an
    /// XML declaration, one root, properly nested elements, quoted unique
    /// attributes, and only the five entities and numeric references. The
    /// elements in document order.
    fn parse(xml: &str) -> Vec<Element> {
        let rest = xml
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .expect("declaration");
        let (mut elements, mut open, mut rest) = (Vec::new(), Vec::<String>::new(), rest);
        let mut roots = 0;
        while let Some(start) = rest.find('<') {
            check_text(&rest[..start], !open.is_empty());
            let end = rest[start..].find('>').expect("unclosed tag") + start;
            let tag = &rest[start + 1..end];
            rest = &rest[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop().as_deref(), Some(name), "mismatched </{name}>");
                continue;
            }
            let (tag, empty) = tag.strip_suffix('/').map_or((tag, false), |t| (t, true));
            let (name, mut attrs) = tag.split_once(' ').unwrap_or((tag, ""));
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "bad name {name:?}"
            );
            let mut attributes: Vec<(String, String)> = Vec::new();
            while !attrs.trim().is_empty() {
                let (key, value) = attrs.trim_start().split_once("=\"").expect("attribute");
                let close = value.find('"').expect("closing quote");
                assert!(!value[..close].contains('<'), "< in an attribute");
                check_text(&value[..close], true);
                assert!(attributes.iter().all(|(k, _)| k != key), "duplicate {key}");
                attributes.push((key.to_owned(), value[..close].to_owned()));
                attrs = &value[close + 1..];
            }
            if open.is_empty() {
                roots += 1;
            }
            if !empty {
                open.push(name.to_owned());
            }
            elements.push(Element {
                name: name.to_owned(),
                attributes,
            });
        }
        check_text(rest, false);
        assert!(open.is_empty(), "unclosed {open:?}");
        assert_eq!(roots, 1, "one root element");
        elements
    }

    fn check_text(text: &str, inside: bool) {
        assert!(
            inside || text.trim().is_empty(),
            "text outside the root: {text:?}"
        );
        assert!(
            text.chars().all(|c| c >= ' ' || "\n\t\r".contains(c)),
            "control character in {text:?}"
        );
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..].find(';').expect("unterminated entity") + i + 1];
            let numeric = entity.strip_prefix("&#").and_then(|n| n.strip_suffix(';'));
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity)
                    || numeric.is_some_and(|n| n.parse::<u32>().is_ok()),
                "bad entity {entity}"
            );
        }
    }

    #[test]
    fn the_report_is_well_formed_with_one_suite_per_area() {
        let xml = fixture::render(render);
        let elements = parse(&xml);
        let named = |name: &'static str| elements.iter().filter(move |e| e.name == name);
        let root = named("testsuites").next().unwrap();
        assert_eq!(root.get("name"), "toolpass: toolpass-reference 0.1.0");
        assert_eq!(
            (
                root.get("tests"),
                root.get("failures"),
                root.get("errors"),
                root.get("skipped")
            ),
            ("9", "2", "2", "1")
        );
        let suites: Vec<&str> = named("testsuite").map(|e| e.get("name")).collect();
        assert_eq!(suites, ["edit", "grep", "mcp", "read", "shell", "tools"]);
        let edit = named("testsuite").next().unwrap();
        assert_eq!(
            (edit.get("tests"), edit.get("failures"), edit.get("time")),
            ("3", "1", "0.036")
        );
        assert_eq!(named("testcase").count(), 9);
        assert_eq!(named("failure").count(), 2);
        assert_eq!(named("error").count(), 2);
        assert_eq!(named("skipped").count(), 1);
        assert_eq!(named("system-out").count(), 3);
        let case = named("testcase").next().unwrap();
        assert_eq!(
            (
                case.get("classname"),
                case.get("name"),
                case.get("file"),
                case.get("time")
            ),
            ("edit", "edit/crlf", "scenarios/edit/crlf.yaml", "0.012")
        );
    }

    #[test]
    fn messages_and_bodies_are_escaped() {
        let mut results = fixture::results();
        // Required, so its message is a failure's attribute, not a note.
        for result in results.iter_mut().filter(|r| r.id == "tools/garbage") {
            result.level = Level::Required;
            result
                .steps
                .iter_mut()
                .for_each(|s| s.level = Level::Required);
        }
        let xml = fixture::render_results(&results, render);
        assert!(xml.contains(
            "<failure message=\"status: expected success, got error | edit_no_occurrence_found\" type=\"fail\">FAIL edit/crlf (required) scenarios/edit/crlf.yaml\n"
        ), "{xml}");
        assert!(xml.contains(
            "message=\"call: line 1 is not JSON: `&lt;html&gt;` &amp; more&#10;second line\" type=\"protocol_error\""
        ), "{xml}");
        assert!(xml.contains("| \\u{001b}[31mpanicked\\u{001b}[0m at src/edit.rs:10: &lt;index&gt; &amp; &quot;bounds&quot;"), "{xml}");
        assert!(
            xml.contains(
                "the file&apos;s bytes differ\n      - expected + actual\n        one\\r\n"
            ),
            "{xml}"
        );
        assert!(xml.contains("<skipped message=\"needs fault:fs.stat, which the implementation does not advertise\"/>"), "{xml}");
    }

    /// Failures and errors, test cases and tallies, for `results` judged
    /// with `problems` besides their own.
    fn red(results: &[ScenarioResult], problems: &[&str]) -> (usize, usize, String) {
        let summary = crate::report::Summary::new(
            results,
            Duration::from_secs(1),
            problems.iter().map(|p| (*p).to_owned()).collect(),
        );
        let info = fixture::info();
        let xml = render(&Report {
            info: &info,
            results,
            summary: &summary,
        });
        let elements = parse(&xml);
        let cases = elements
            .iter()
            .filter(|e| e.name == "failure" || e.name == "error")
            .count();
        let root = &elements[0];
        let tallied = root.get("failures").parse::<usize>().unwrap()
            + root.get("errors").parse::<usize>().unwrap();
        assert_eq!(cases, tallied, "{xml}");
        (cases, summary.problems.len(), xml)
    }

    #[test]
    fn a_test_case_fails_exactly_when_the_exit_code_counts_it() {
        let results = fixture::results();
        let (red_cases, problems, xml) = red(&results, &[]);
        // edit/crlf (required fail), grep/listed (xpass), read/sandbox
        // (required error), shell/crash (required crash); not shell/hang
        // (a recommended timeout) nor tools/garbage (optional).
        assert_eq!((red_cases, problems), (4, 4), "{xml}");
        assert!(
            xml.contains(
                "name=\"shell/hang\" file=\"scenarios/shell/hang.yaml\" time=\"0.012\">\n      \
                 <properties><property name=\"level\" value=\"recommended\"/><property \
                 name=\"verdict\" value=\"timeout\"/></properties>\n      <system-out>timeout at \
                 recommended level (scored; only required failures fail the run):\nTIMEOUT shell/hang"
            ),
            "{xml}"
        );

        // A recommended-only run is green for the exit code and for JUnit.
        let recommended: Vec<ScenarioResult> = results
            .iter()
            .filter(|r| r.id == "shell/hang" || r.id == "tools/garbage")
            .cloned()
            .collect();
        assert_eq!(red(&recommended, &[]).0, 0);

        // Problems of the expected-failures file fail a case each.
        let stale = "xfail.yaml:3:3: `gone` names no scenario of this run: remove it";
        let (red_cases, problems, xml) = red(&recommended, &[stale]);
        assert_eq!((red_cases, problems), (1, 1));
        assert!(
            xml.contains(
                "<testsuite name=\"toolpass\" timestamp=\"2026-12-02T17:51:50Z\" tests=\"1\" \
                 failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n    <testcase \
                 classname=\"toolpass\" name=\"xfail.yaml:3:3\" time=\"0.000\">\n      <failure \
                 message=\"xfail.yaml:3:3: `gone` names no scenario of this run: remove it\" \
                 type=\"problem\"/>"
            ),
            "{xml}"
        );
    }

    #[test]
    fn a_failing_pending_scenario_passes_with_a_note() {
        let mut results = fixture::results();
        results.truncate(1);
        results[0].level = Level::Pending;
        let xml = fixture::render_results(&results, render);
        let elements = parse(&xml);
        assert_eq!(elements[0].get("failures"), "0");
        assert!(
            xml.contains("<system-out>pending scenario (not scored):\nFAIL edit/crlf"),
            "{xml}"
        );
    }

    #[test]
    fn repetitions_are_told_apart_by_name() {
        let mut results = fixture::results();
        results.truncate(1);
        let mut again = results[0].clone();
        again.repetition = 2;
        results.push(again);
        let xml = fixture::render_results(&results, render);
        let names: Vec<String> = parse(&xml)
            .into_iter()
            .filter(|e| e.name == "testcase")
            .map(|e| e.get("name").to_owned())
            .collect();
        assert_eq!(
            names,
            ["edit/crlf (repetition 1)", "edit/crlf (repetition 2)"]
        );
    }
}
