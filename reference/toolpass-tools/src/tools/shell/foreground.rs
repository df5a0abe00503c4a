//! A foreground command from start to result: Qwen's
//! `ShellToolInvocation.execute` for `is_background` false.
//!
//! The command runs on the calling thread (the server's blocking pool) with
//! `toolpass_shell::run`; the call's cancellation fires the run's
//! [`Cancel`], and the run's live output goes to the call's updates at
//! most once a second. The result is Qwen's: the labelled text, or its
//! timeout and cancel sentences; a failure when the command timed out, was
//! killed by a signal or exited with a code that is not an answer; cut to
//! the shell's budget before Qwen's long-run note is appended, so the note
//! is never what gets cut.
//!
//! The run keeps a long output's head and tail in memory and spools the
//! whole of it to the session's spill directory (asked for only then), so
//! the spill file named in the cut text holds the whole text the cut was
//! made from, however long.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use toolpass_core::truncate::{Keep, Limits};
use toolpass_shell::result_text::{Ended, ShellResult, timeout_summary};
use toolpass_shell::{Cancel, Ending, Options, Request, SpoolDir, Spooled, command};

use super::{NAME, ShellParams};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::output_budget;
use crate::result::{Budget, Display, Failure, ToolResult};
use crate::spill_budget::SPILL_BUDGET_BYTES;
use crate::workspace::Workspace;

/// Qwen's `DEFAULT_FOREGROUND_TIMEOUT_MS`.
pub(super) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Qwen's `MIN_LONG_RUN_THRESHOLD_MS`.
const MIN_LONG_RUN: Duration = Duration::from_secs(1);
/// The most of the budget a preview shows (Qwen's shell passes
/// `previewChars: min(4000, budget)`).
const MAX_PREVIEW_CHARS: usize = 4000;
/// Between the result and a note appended to it.
const NOTE_SEPARATOR: &str = "\n\n";

/// Runs `request`, the command of `params`, and words the result.
pub(super) fn run(
    workspace: &Workspace,
    context: &InvocationContext,
    params: &ShellParams,
    request: &Request,
) -> Result<ToolResult, Failure> {
    let timeout_ms = params.timeout.unwrap_or(DEFAULT_TIMEOUT_MS);
    let spool_dir = || workspace.spill_dir().map(PathBuf::from);
    let options = Options {
        timeout: Some(Duration::from_millis(timeout_ms)),
        // A whole output past the session's spill budget could not be kept
        // as a spill anyway.
        spool: Some(SpoolDir {
            dir: &spool_dir,
            cap: SPILL_BUDGET_BYTES,
        }),
        ..Options::default()
    };
    let cancel = Cancel::new();
    let fire = cancel.clone();
    let _bridge = context.cancellation.on_request(move || fire.fire());
    let started = Instant::now();
    let outcome = toolpass_shell::run(request, &options, &cancel, &mut |text| context.update(text));
    let elapsed = started.elapsed();
    let shown = Shown {
        command: &params.command,
        directory: params.directory(),
    };
    match outcome {
        Ok(outcome) => {
            let ended = match outcome.ending {
                Ending::Exited => Ended::Exited,
                Ending::TimedOut => Ended::TimedOut { timeout_ms },
                Ending::Cancelled => Ended::Cancelled,
            };
            let result = ShellResult {
                command: shown.command,
                directory: shown.directory,
                output: &outcome.output,
                error: None,
                exit_code: outcome.exit_code,
                signal: outcome.signal,
                process_group: Some(outcome.pid),
                ended,
            };
            // Qwen's long-run hint: a command that ran to its end for at
            // least half its timeout is nudged towards the background.
            let long_run = ended == Ended::Exited
                && outcome.signal.is_none()
                && elapsed >= MIN_LONG_RUN.max(Duration::from_millis(timeout_ms / 2));
            let note = long_run.then(|| long_run_note(elapsed));
            let failure = match ended {
                Ended::TimedOut { timeout_ms } => Some((
                    ToolErrorCode::ExecutionTimeout,
                    Some(timeout_summary(timeout_ms)),
                )),
                Ended::Exited
                    if outcome.signal.is_some()
                        || command::is_exit_error(&params.command, outcome.exit_code) =>
                {
                    Some((ToolErrorCode::ShellExecuteError, None))
                }
                _ => None,
            };
            if let Some(e) = &outcome.spool_error {
                tracing::warn!("could not keep the whole output of a command: {e}");
            }
            Ok(shown.finish(workspace, &result, outcome.spooled, note, failure))
        }
        // Qwen's `result.error`: the command could not start (a missing
        // directory among the causes), told in the labelled result.
        Err(error) => {
            let message = error.to_string();
            let result = ShellResult {
                command: shown.command,
                directory: shown.directory,
                output: "",
                error: Some(&message),
                exit_code: None,
                signal: None,
                process_group: None,
                ended: Ended::Exited,
            };
            Ok(shown.finish(
                workspace,
                &result,
                None,
                None,
                Some((ToolErrorCode::ShellExecuteError, None)),
            ))
        }
    }
}

/// What the result names.
struct Shown<'a> {
    command: &'a str,
    directory: Option<&'a str>,
}

impl Shown<'_> {
    /// The result: Qwen's texts for `result`, held to the budget with room
    /// kept for `note`, then `note` appended; the spill file gets the whole
    /// output from `spooled` when the run has it. `failure` is the code and,
    /// when it differs from the text, the error's message.
    fn finish(
        &self,
        workspace: &Workspace,
        result: &ShellResult<'_>,
        spooled: Option<Spooled>,
        note: Option<String>,
        failure: Option<(ToolErrorCode, Option<String>)>,
    ) -> ToolResult {
        let mut llm = result.model_text();
        let mut display = result.display_text();
        let threshold = workspace.config().shell_output_threshold;
        let note_chars = note
            .as_deref()
            .map_or(0, |n| NOTE_SEPARATOR.len() + n.encode_utf16().count());
        // Qwen's `bodyBudgetChars`: the note's room comes off the budget,
        // at most half of it.
        let body = threshold
            .saturating_sub(note_chars.min(threshold / 2))
            .max(1);
        let limits = Limits {
            threshold: body,
            lines: None,
            keep: Keep::Both,
            preview_chars: Some(body.min(MAX_PREVIEW_CHARS)),
        };
        let frame = result.frame();
        let spilled = output_budget::hold_with(workspace, NAME, &limits, &mut llm, |file, text| {
            match (spooled, frame) {
                (Some(spooled), Some((before, after))) => {
                    write_whole(file, &before, spooled, &after)
                }
                _ => file.write_all(text.as_bytes()),
            }
        });
        if let Some(path) = &spilled {
            if !display.is_empty() {
                display.push('\n');
            }
            display.push_str(&format!(
                "Output too long and was saved to: {}",
                path.display()
            ));
        }
        if let Some(note) = &note {
            llm.push_str(NOTE_SEPARATOR);
            llm.push_str(note);
            if !display.is_empty() {
                display.push_str(NOTE_SEPARATOR);
            }
            display.push_str(note);
        }
        let budget = Budget::Applied(spilled);
        match failure {
            None => {
                let mut done = ToolResult::new(llm, Display::Text(display));
                done.budget = budget;
                done
            }
            Some((code, message)) => {
                let message = message.unwrap_or_else(|| llm.clone());
                let mut failed = ToolResult::from(
                    Failure::new(code, message)
                        .llm_content(llm)
                        .display(display),
                );
                failed.budget = budget;
                failed
            }
        }
    }
}

/// The model's text with the whole output in place of the cut one.
fn write_whole(file: &mut File, before: &str, output: Spooled, after: &str) -> io::Result<()> {
    file.write_all(before.as_bytes())?;
    output.write_output(file)?;
    file.write_all(after.as_bytes())
}

/// Qwen's `buildLongRunningForegroundHint`.
fn long_run_note(elapsed: Duration) -> String {
    // `Math.round(ms / 1000)`.
    let seconds = (elapsed.as_millis() + 500) / 1000;
    format!(
        "Note: this foreground command ran for {seconds}s. Next time you run a similar \
         long-running process (build watchers, dev servers, soak tests, polling loops), pass \
         `is_background: true` so the agent isn't blocked while the command runs. (This is \
         forward-looking guidance for FUTURE invocations \u{2014} do NOT re-run the command that \
         just completed; for stateful operations like deploys, migrations, or git push, that \
         would cause double side effects.) The output of background runs stays inspectable via \
         /tasks (text, any mode) or the on-disk output file; in interactive mode the Background \
         tasks dialog also has a per-entry detail view + live updates."
    )
}
