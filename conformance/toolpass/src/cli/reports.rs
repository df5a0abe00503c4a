//! `run`'s report flags: `--jsonl`, `--junit`, `--markdown`, any together,
//! written after the text report from the same results.
//!
//! `-` writes a report to stdout; the text report then goes to stderr, so
//! stdout carries that one report alone (`--jsonl - | jq`). Only one report
//! can take stdout.

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use anyhow::{Context as _, bail};
use clap::Args;
use toolpass::Implementation;
use toolpass::report::text::{self, Style};
use toolpass::report::{
    ImplementationInfo, Report, RunInfo, Settings, SuiteProfile, Summary, jsonl, junit, markdown,
};
use toolpass::run::{RunConfig, ScenarioResult};

use super::filter::FilterArgs;

/// The report files of a run.
#[derive(Debug, Args)]
#[command(
    next_help_heading = "Reports (any together; `-` for stdout moves the text report to stderr)"
)]
pub(super) struct ReportArgs {
    /// Also write the JSONL report: a header, a line per step and per
    /// scenario, a footer (`toolpass schema report` prints its schema).
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Also write a JUnit XML report, one testsuite per area.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write a Markdown summary, e.g. to "$GITHUB_STEP_SUMMARY"
    /// (overwritten).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
}

/// What the run was, for the reports: `peer` as it introduced itself,
/// `started` when the scenarios started.
pub(super) fn info(
    config: &RunConfig,
    filter: &FilterArgs,
    expected_failures: Option<&Path>,
    implementation: &Implementation,
    peer: toolpass_protocol::Implementation,
    started: Instant,
) -> RunInfo {
    RunInfo {
        toolpass: env!("CARGO_PKG_VERSION").to_owned(),
        implementation: ImplementationInfo {
            name: peer.name,
            version: peer.version,
            command: implementation.to_string(),
            description: peer.description,
        },
        started: SystemTime::now()
            .checked_sub(started.elapsed())
            .unwrap_or_else(SystemTime::now),
        config: Settings {
            jobs: config.jobs,
            timeout_s: config.timeout.as_secs_f64(),
            repeat: config.repeat,
            isolate: config.isolate,
            filters: filter.describe(),
            expected_failures: expected_failures.map(|p| p.display().to_string()),
            bless: config.bless,
            partition: filter.partition().map(|p| p.to_string()),
            merged: Vec::new(),
        },
    }
}

/// A report's name, where it goes, and its renderer.
type File<'a> = (&'static str, Option<&'a Path>, fn(&Report<'_>) -> String);

impl ReportArgs {
    fn files(&self) -> [File<'_>; 3] {
        [
            ("JSONL", self.jsonl.as_deref(), jsonl::render),
            ("JUnit", self.junit.as_deref(), junit::render),
            ("Markdown", self.markdown.as_deref(), markdown::render),
        ]
    }

    fn stdout(&self) -> usize {
        self.files()
            .iter()
            .filter(|(_, path, _)| path.is_some_and(is_stdout))
            .count()
    }

    /// Refuses what cannot be written, before anything runs.
    pub(super) fn check(&self) -> anyhow::Result<()> {
        if self.stdout() > 1 {
            bail!("only one of --jsonl, --junit and --markdown can be `-` (stdout)");
        }
        // A missing directory would otherwise be found after the whole run.
        for (kind, path, _) in self.files() {
            let Some(path) = path.filter(|p| !is_stdout(p)) else {
                continue;
            };
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            if parent.is_some_and(|dir| !dir.is_dir()) {
                bail!(
                    "cannot write the {kind} report to {}: its directory does not exist",
                    path.display()
                );
            }
        }
        Ok(())
    }

    /// Where the text report goes: stdout, or stderr when a report takes
    /// stdout.
    pub(super) fn text_output(&self) -> Box<dyn Write> {
        if self.stdout() > 0 {
            Box::new(std::io::stderr().lock())
        } else {
            Box::new(std::io::stdout().lock())
        }
    }

    /// The text report's style: colours when it goes to a terminal, unless
    /// `NO_COLOR` says otherwise.
    pub(super) fn text_style(&self) -> Style {
        let terminal = if self.stdout() > 0 {
            std::io::stderr().is_terminal()
        } else {
            std::io::stdout().is_terminal()
        };
        Style::for_terminal(terminal)
    }

    /// Writes the text report, the scenarios then the summary, and returns
    /// where it went for whatever the command adds.
    pub(super) fn write_text(
        &self,
        results: &[ScenarioResult],
        summary: &Summary,
        profile: SuiteProfile,
    ) -> anyhow::Result<Box<dyn Write>> {
        let style = self.text_style();
        let mut out = self.text_output();
        // The summary's first line says which part of the suite its scores
        // are of.
        write!(
            out,
            "{}profile {}: {}",
            text::scenarios(results, style),
            profile.as_str(),
            text::summary(summary, style)
        )
        .context("failed to write the text report")?;
        Ok(out)
    }

    /// Writes every report asked for. One that cannot be written does not
    /// stop the others; the error names each that failed.
    pub(super) fn write(
        &self,
        info: &RunInfo,
        results: &[ScenarioResult],
        summary: &Summary,
    ) -> anyhow::Result<()> {
        let report = Report {
            info,
            results,
            summary,
        };
        let errors: Vec<String> = self
            .files()
            .into_iter()
            .filter_map(|(kind, path, render)| {
                let path = path?;
                write(kind, path, &render(&report)).err()
            })
            .map(|e| format!("{e:#}"))
            .collect();
        if !errors.is_empty() {
            bail!("{}", errors.join("\ntoolpass: "));
        }
        Ok(())
    }
}

fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

fn write(kind: &str, path: &Path, text: &str) -> anyhow::Result<()> {
    if is_stdout(path) {
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .with_context(|| format!("failed to write the {kind} report to stdout"));
    }
    std::fs::write(path, text)
        .with_context(|| format!("failed to write the {kind} report to {}", path.display()))
}
