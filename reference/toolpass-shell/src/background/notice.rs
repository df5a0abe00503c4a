//! What the model reads about background shells, in Qwen Code's words: the
//! launch reply (`executeBackground` in `tools/shell.ts`), the notification
//! when a shell ends (`emitNotification` in
//! `services/backgroundShellRegistry.ts`), and `task_stop`'s replies
//! (`tools/task-stop.ts`). Pure: the output tail is passed in.
//!
//! Qwen 0.24.4 gives the model one tool for background shells, `task_stop`.
//! There is no listing tool (`/tasks` and the Background tasks dialog are
//! for the person) and no output tool: the launch reply names the output
//! file and the status file, which the model reads with `read_file`.

use crate::output::text::{
    is_js_whitespace, js_length, js_prefix, js_trim_end, strip_display_controls,
    strip_output_controls,
};

/// Qwen's `MAX_NOTIFICATION_OUTPUT_TAIL_BYTES`.
pub const OUTPUT_TAIL_BYTES: usize = 8192;
/// Qwen's `MAX_NOTIFICATION_MODEL_COMMAND_LENGTH` (UTF-16 units).
pub const MODEL_COMMAND_LENGTH: usize = 500;
/// Qwen's `NOTIFICATION_LABEL_MAX_LENGTH` (code points).
pub const LABEL_LENGTH: usize = 80;

/// Where a background shell is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Started and not yet ended.
    Running,
    /// Exited with code 0.
    Completed,
    /// Exited otherwise, was killed by a signal, or could not run.
    Failed,
    /// Stopped by `task_stop` or by the session's end.
    Cancelled,
}

impl Status {
    /// The name Qwen writes (`status` in the status file and notification).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The verb phrase of Qwen's summary.
    fn summary(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Running | Self::Cancelled => "was cancelled",
        }
    }
}

/// The end of a shell's output file, as Qwen's `readOutputTail` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tail {
    /// Nothing printable.
    Empty,
    /// The text, and whether bytes before it were left out.
    Text {
        /// The tail: cut on a character boundary, controls removed.
        text: String,
        /// Whether the file had more before it.
        truncated: bool,
    },
    /// The file could not be read.
    Unreadable,
}

impl Tail {
    /// The tail of a file whose last bytes are `last` and which held `size`
    /// bytes in all: leading continuation bytes dropped when the file was
    /// cut, lossy UTF-8, controls stripped, trailing white space trimmed.
    #[must_use]
    pub fn from_end(last: &[u8], size: u64) -> Self {
        let truncated = size > last.len() as u64;
        let skip = if truncated {
            last.iter().take_while(|&&b| b & 0xC0 == 0x80).count()
        } else {
            0
        };
        let text = strip_output_controls(&String::from_utf8_lossy(&last[skip..]));
        let text = js_trim_end(&text);
        if text.is_empty() {
            Self::Empty
        } else {
            Self::Text {
                text: text.to_owned(),
                truncated,
            }
        }
    }
}

/// A background shell as a notification describes it.
#[derive(Clone, Copy, Debug)]
pub struct Ended<'a> {
    /// Its id (`bg_` and eight hex digits).
    pub id: &'a str,
    /// How it ended.
    pub status: Status,
    /// The command.
    pub command: &'a str,
    /// Its working directory.
    pub cwd: &'a str,
    /// Its pid, when it had one.
    pub pid: Option<u32>,
    /// Its exit code (set for `completed` only, as in Qwen).
    pub exit_code: Option<i32>,
    /// Why it failed.
    pub error: Option<&'a str>,
    /// The end of its output.
    pub tail: &'a Tail,
    /// Its output file.
    pub output_file: &'a str,
}

/// A notification: one line for a person and the model's XML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The shell's id, so the caller can tell whom to notify.
    pub id: String,
    /// `Background shell "<label>" completed.`
    pub display: String,
    /// The `<task-notification>` element.
    pub text: String,
}

/// Qwen's notification for a shell that ended.
#[must_use]
pub fn notification(shell: &Ended<'_>) -> Notification {
    let label = label(shell.command);
    let verb = shell.status.summary();
    let (command, truncated) = command_for_model(shell.command);
    let mut parts = vec![
        "<task-notification>".to_owned(),
        format!("<task-id>{}</task-id>", escape(shell.id)),
        "<kind>shell</kind>".to_owned(),
        format!("<status>{}</status>", escape(shell.status.name())),
        format!(
            "<summary>Shell command \"{}\" {verb}.</summary>",
            escape(&label)
        ),
        if truncated {
            format!("<command truncated=\"true\">{}</command>", escape(&command))
        } else {
            format!("<command>{}</command>", escape(&command))
        },
        format!("<cwd>{}</cwd>", escape(&strip_display_controls(shell.cwd))),
    ];
    if let Some(pid) = shell.pid {
        parts.push(format!("<pid>{pid}</pid>"));
    }
    if let Some(code) = shell.exit_code {
        parts.push(format!("<exit-code>{code}</exit-code>"));
    }
    if let Some(error) = shell.error.filter(|e| !e.is_empty()) {
        parts.push(format!(
            "<result>{}</result>",
            escape(&strip_display_controls(error))
        ));
    }
    match shell.tail {
        Tail::Empty => {}
        Tail::Unreadable => parts.push("<output-tail error=\"unreadable\" />".to_owned()),
        Tail::Text { text, truncated } => parts.push(format!(
            "<output-tail truncated=\"{truncated}\">{}</output-tail>",
            escape(text)
        )),
    }
    parts.push(format!(
        "<output-file>{}</output-file>",
        escape(&strip_display_controls(shell.output_file))
    ));
    parts.push("</task-notification>".to_owned());
    Notification {
        id: shell.id.to_owned(),
        display: format!("Background shell \"{label}\" {verb}."),
        text: parts.join("\n"),
    }
}

/// The reply to a background launch.
#[must_use]
pub fn launch_text(id: &str, pid: Option<u32>, output_file: &str, status_file: &str) -> String {
    let pid_line = pid.map(|pid| format!("pid: {pid}\n")).unwrap_or_default();
    format!(
        "Background shell started.\nid: {id}\n{pid_line}output file: {output_file}\n\
         status file: {status_file}\n\
         To check whether this process is still running, Read the status file (status: running|completed|failed|cancelled). Do NOT infer liveness from the output file: programs often block-buffer stdout when not attached to a TTY, so an empty output file is normal while the process is alive (for live output, re-run with e.g. `python -u` or `stdbuf -oL`).\n\
         To inspect: /tasks (text) or the interactive Background tasks dialog (focus the footer Background tasks pill, then Enter \u{2014} detail view + live updates). Read the output file directly to view the captured output."
    )
}

/// The line a person sees for a launch.
#[must_use]
pub fn launch_display(id: &str, pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!("Background shell {id} started (pid {pid})."),
        None => format!("Background shell {id} started."),
    }
}

/// Why `task_stop` failed (Qwen's `ToolErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopError {
    /// `task_stop_not_found`.
    NotFound,
    /// `task_stop_not_running`.
    NotRunning,
}

/// `task_stop`'s reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReply {
    /// What the model reads.
    pub model_text: String,
    /// What a person sees.
    pub display: String,
    /// The failure, if it failed, with Qwen's error message.
    pub error: Option<(StopError, String)>,
}

/// `task_stop` on a running shell: cancellation requested.
#[must_use]
pub fn stop_requested(id: &str, output_file: &str, command: &str) -> StopReply {
    StopReply {
        model_text: format!(
            "Cancellation requested for background shell \"{id}\". Final status will be visible via /tasks (text) or the interactive Background tasks dialog (focus the footer Background tasks pill, then Enter) once the process drains; captured output remains at {output_file}.\nCommand: {command}"
        ),
        display: format!("Cancelled shell: {command}"),
        error: None,
    }
}

/// `task_stop` on a shell that already ended.
#[must_use]
pub fn stop_not_running(id: &str, status: Status) -> StopReply {
    let status = status.name();
    StopReply {
        model_text: format!("Error: Background shell \"{id}\" is not running (status: {status})."),
        display: format!("Task not running ({status})."),
        error: Some((StopError::NotRunning, format!("shell is {status}: {id}"))),
    }
}

/// `task_stop` on an id no task has.
#[must_use]
pub fn stop_not_found(id: &str) -> StopReply {
    StopReply {
        model_text: format!("Error: No background task found with ID \"{id}\"."),
        display: "Task not found.".to_owned(),
        error: Some((StopError::NotFound, format!("Task not found: {id}"))),
    }
}

/// Qwen's `escapeXml`.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// `truncateNotificationLabel`: controls removed, white space runs made one
/// space, trimmed, at most 80 code points (77 and `...`).
fn label(command: &str) -> String {
    let clean = strip_display_controls(command);
    let mut collapsed = String::new();
    let mut in_space = false;
    for c in clean.chars() {
        if is_js_whitespace(c) {
            in_space = true;
            continue;
        }
        if in_space && !collapsed.is_empty() {
            collapsed.push(' ');
        }
        in_space = false;
        collapsed.push(c);
    }
    if collapsed.chars().count() <= LABEL_LENGTH {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(LABEL_LENGTH - 3).collect();
    cut.push_str("...");
    cut
}

/// `truncateCommandForModel`: controls removed, at most 500 UTF-16 units
/// (497 and `...`).
fn command_for_model(command: &str) -> (String, bool) {
    let clean = strip_display_controls(command);
    if js_length(&clean) <= MODEL_COMMAND_LENGTH {
        return (clean, false);
    }
    (
        format!("{}...", js_prefix(&clean, MODEL_COMMAND_LENGTH - 3)),
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended<'a>(status: Status, tail: &'a Tail) -> Ended<'a> {
        Ended {
            id: "bg_0123abcd",
            status,
            command: "npm run <dev>",
            cwd: "/w",
            pid: Some(77),
            exit_code: None,
            error: None,
            tail,
            output_file: "/t/shell-bg_0123abcd.output",
        }
    }

    #[test]
    fn a_completed_shell_is_reported_in_qwens_xml() {
        let tail = Tail::Text {
            text: "done & dusted".into(),
            truncated: false,
        };
        let shell = Ended {
            exit_code: Some(0),
            ..ended(Status::Completed, &tail)
        };
        let n = notification(&shell);
        assert_eq!(n.display, "Background shell \"npm run <dev>\" completed.");
        assert_eq!(
            n.text,
            "<task-notification>\n<task-id>bg_0123abcd</task-id>\n<kind>shell</kind>\n<status>completed</status>\n\
             <summary>Shell command \"npm run &lt;dev&gt;\" completed.</summary>\n<command>npm run &lt;dev&gt;</command>\n\
             <cwd>/w</cwd>\n<pid>77</pid>\n<exit-code>0</exit-code>\n\
             <output-tail truncated=\"false\">done &amp; dusted</output-tail>\n\
             <output-file>/t/shell-bg_0123abcd.output</output-file>\n</task-notification>"
        );
    }

    #[test]
    fn failures_carry_the_reason_and_cancels_say_was_cancelled() {
        let failed = Ended {
            error: Some("exited with code 2"),
            ..ended(Status::Failed, &Tail::Unreadable)
        };
        let text = notification(&failed).text;
        assert!(
            text.contains(
                "<result>exited with code 2</result>\n<output-tail error=\"unreadable\" />"
            )
        );
        let cancelled = notification(&ended(Status::Cancelled, &Tail::Empty));
        assert!(cancelled.display.ends_with("\" was cancelled."));
        assert!(!cancelled.text.contains("output-tail"));
    }

    #[test]
    fn the_tail_is_cut_on_a_character_boundary_and_cleaned() {
        let bytes = "é\x1b[31mred\x07\r\n  \n".as_bytes();
        // The file held more: the tail starts inside "é".
        let tail = Tail::from_end(&bytes[1..], 100);
        assert_eq!(
            tail,
            Tail::Text {
                text: "[31mred".into(),
                truncated: true
            }
        );
        assert_eq!(Tail::from_end(b" \n\t", 3), Tail::Empty);
    }

    #[test]
    fn labels_and_commands_are_bounded_as_qwen_bounds_them() {
        assert_eq!(label("  a \n\t b  "), "a b");
        let long = "x".repeat(100);
        assert_eq!(label(&long), format!("{}...", "x".repeat(77)));
        let (command, truncated) = command_for_model(&"😀".repeat(300));
        assert!(truncated);
        assert_eq!(
            js_length(&command),
            496 + 3,
            "a surrogate pair is not split"
        );
    }

    #[test]
    fn task_stop_replies_use_qwens_words() {
        let stop = stop_requested("bg_1", "/o", "sleep 9");
        assert!(
            stop.model_text
                .starts_with("Cancellation requested for background shell \"bg_1\".")
        );
        assert!(
            stop.model_text
                .ends_with("captured output remains at /o.\nCommand: sleep 9")
        );
        assert_eq!(
            stop_not_running("bg_1", Status::Completed).model_text,
            "Error: Background shell \"bg_1\" is not running (status: completed)."
        );
        assert_eq!(
            stop_not_found("bg_9").error,
            Some((StopError::NotFound, "Task not found: bg_9".into()))
        );
    }

    #[test]
    fn the_launch_reply_names_the_files() {
        let text = launch_text("bg_1", Some(5), "/o", "/s");
        assert!(text.starts_with(
            "Background shell started.\nid: bg_1\npid: 5\noutput file: /o\nstatus file: /s\n"
        ));
        assert!(!launch_text("bg_1", None, "/o", "/s").contains("pid:"));
        assert_eq!(
            launch_display("bg_1", Some(5)),
            "Background shell bg_1 started (pid 5)."
        );
    }
}
