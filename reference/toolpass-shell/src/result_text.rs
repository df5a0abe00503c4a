//! The text of a foreground `run_shell_command` result, in Qwen Code's words
//! (`ShellToolInvocation.execute` in `tools/shell.ts`). Pure: no IO, so it
//! can move to `toolpass-core` with the other result wording.
//!
//! Qwen 0.24.4's result has no "Background PIDs" line: the `pgrep -g 0`
//! wrapper of earlier versions is gone, and the line is not printed. The
//! runner still reports those processes ([`crate::Outcome::background_pids`]).

use crate::output::text::js_trim;

/// Qwen's first sentence for a cancelled command.
const CANCELLED_SUMMARY: &str = "Command was cancelled by user before it could complete.";

/// Qwen's answer to a call cancelled before its command started.
pub const CANCELLED_BEFORE_START: &str = "Command was cancelled by user before it could start.";

/// How a foreground run ended, as the result text tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The shell exited.
    Exited,
    /// Ended by the timeout of so many milliseconds.
    TimedOut {
        /// The timeout, as the call gave it.
        timeout_ms: u64,
    },
    /// Ended by the user's cancel.
    Cancelled,
}

/// What the result text is made of.
#[derive(Clone, Copy, Debug)]
pub struct ShellResult<'a> {
    /// The command as the model wrote it.
    pub command: &'a str,
    /// The `directory` argument as given, if any.
    pub directory: Option<&'a str>,
    /// The output (see [`crate::output`]).
    pub output: &'a str,
    /// A failure to run, if one happened (Qwen's `result.error.message`).
    pub error: Option<&'a str>,
    /// The exit code, when the shell exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the shell, when one did.
    pub signal: Option<i32>,
    /// The process group. Qwen's pipes path reports none (its result carries
    /// no pid there), its pty path the shell's pid.
    pub process_group: Option<u32>,
    /// How the run ended.
    pub ended: Ended,
}

impl ShellResult<'_> {
    /// The text the model sees (`llmContent`).
    #[must_use]
    pub fn model_text(&self) -> String {
        match self.frame() {
            Some((before, after)) => {
                let output = if self.output.is_empty() {
                    "(empty)"
                } else {
                    self.output
                };
                format!("{before}{output}{after}")
            }
            None => {
                let (summary, what) = match self.ended {
                    Ended::TimedOut { timeout_ms } => (timeout_summary(timeout_ms), "timed out"),
                    _ => (CANCELLED_SUMMARY.to_owned(), "was cancelled"),
                };
                format!("{summary} There was no output before it {what}.")
            }
        }
    }

    /// The model's text before and after the output, when the text shows
    /// it: the whole text of a long output is `before`, the whole output and
    /// `after`, which a spill file is made of.
    #[must_use]
    pub fn frame(&self) -> Option<(String, String)> {
        let has_output = !js_trim(self.output).is_empty();
        match self.ended {
            Ended::TimedOut { timeout_ms } => has_output.then(|| {
                let summary = timeout_summary(timeout_ms);
                (
                    format!("{summary} Below is the output before it timed out:\n"),
                    String::new(),
                )
            }),
            Ended::Cancelled => has_output.then(|| {
                (
                    format!("{CANCELLED_SUMMARY} Below is the output before it was cancelled:\n"),
                    String::new(),
                )
            }),
            Ended::Exited => {
                let none = || "(none)".to_owned();
                let before = format!(
                    "Command: {}\nDirectory: {}\nOutput: ",
                    self.command,
                    self.directory.filter(|d| !d.is_empty()).unwrap_or("(root)")
                );
                let after = [
                    String::new(),
                    format!("Error: {}", self.error.map_or_else(none, str::to_owned)),
                    format!(
                        "Exit Code: {}",
                        self.exit_code.map_or_else(none, |c| c.to_string())
                    ),
                    format!(
                        "Signal: {}",
                        self.signal.map_or_else(none, |s| s.to_string())
                    ),
                    format!(
                        "Process Group PGID: {}",
                        self.process_group.map_or_else(none, |p| p.to_string())
                    ),
                ]
                .join("\n");
                Some((before, after))
            }
        }
    }

    /// The text a person sees (`returnDisplay.text` outside debug mode).
    #[must_use]
    pub fn display_text(&self) -> String {
        if !js_trim(self.output).is_empty() {
            return match self.ended {
                Ended::TimedOut { timeout_ms } => {
                    format!("{}\n{}", timeout_summary(timeout_ms), self.output)
                }
                _ => self.output.to_owned(),
            };
        }
        match (self.ended, self.signal, self.error, self.exit_code) {
            (Ended::TimedOut { timeout_ms }, ..) => format!(
                "{} There was no output before it timed out.",
                timeout_summary(timeout_ms)
            ),
            (Ended::Cancelled, ..) => "Command cancelled by user.".to_owned(),
            (_, Some(signal), ..) if signal != 0 => {
                format!("Command terminated by signal: {signal}")
            }
            (_, _, Some(error), _) => format!("Command failed: {error}"),
            (_, _, _, Some(code)) if code != 0 => format!("Command exited with code: {code}"),
            _ => String::new(),
        }
    }
}

/// Qwen's `timeoutSummary`.
#[must_use]
pub fn timeout_summary(timeout_ms: u64) -> String {
    format!("Command timed out after {timeout_ms}ms before it could complete.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited<'a>(output: &'a str, exit_code: Option<i32>) -> ShellResult<'a> {
        ShellResult {
            command: "ls -la",
            directory: None,
            output,
            error: None,
            exit_code,
            signal: None,
            process_group: Some(4242),
            ended: Ended::Exited,
        }
    }

    #[test]
    fn an_exit_lists_qwens_labels_in_qwens_order() {
        assert_eq!(
            exited("a\nb", Some(0)).model_text(),
            "Command: ls -la\nDirectory: (root)\nOutput: a\nb\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 4242"
        );
        let empty = ShellResult {
            directory: Some("sub"),
            signal: Some(9),
            process_group: None,
            ..exited("", None)
        };
        assert_eq!(
            empty.model_text(),
            "Command: ls -la\nDirectory: sub\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 9\nProcess Group PGID: (none)"
        );
        assert_eq!(empty.display_text(), "Command terminated by signal: 9");
    }

    #[test]
    fn a_timeout_says_so_with_or_without_output() {
        let timed = |output| ShellResult {
            ended: Ended::TimedOut { timeout_ms: 5000 },
            ..exited(output, None)
        };
        assert_eq!(
            timed("partial").model_text(),
            "Command timed out after 5000ms before it could complete. Below is the output before it timed out:\npartial"
        );
        assert_eq!(
            timed(" \n").model_text(),
            "Command timed out after 5000ms before it could complete. There was no output before it timed out."
        );
        assert_eq!(
            timed("partial").display_text(),
            "Command timed out after 5000ms before it could complete.\npartial"
        );
    }

    #[test]
    fn a_cancel_says_so_with_or_without_output() {
        let cancelled = |output| ShellResult {
            ended: Ended::Cancelled,
            ..exited(output, None)
        };
        assert_eq!(
            cancelled("x").model_text(),
            "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nx"
        );
        assert_eq!(
            cancelled("").model_text(),
            "Command was cancelled by user before it could complete. There was no output before it was cancelled."
        );
        assert_eq!(cancelled("").display_text(), "Command cancelled by user.");
    }

    #[test]
    fn a_silent_failure_shows_its_exit_code() {
        assert_eq!(
            exited("", Some(2)).display_text(),
            "Command exited with code: 2"
        );
        assert_eq!(exited("", Some(0)).display_text(), "");
    }
}
