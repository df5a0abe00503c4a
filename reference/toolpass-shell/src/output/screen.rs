//! A pty's output as a terminal shows it.
//!
//! Qwen Code writes pty output into a headless xterm and reads the text back
//! (`replayTerminalOutput` and `serializeTerminalToText` in
//! `services/shellExecutionService.ts`): cursor moves, carriage returns and
//! erases are applied, colours dropped, soft-wrapped rows joined, each row's
//! trailing blanks and the text's trailing white space trimmed, and a bare
//! line feed also returns the carriage (`convertEol: true`). The same is done
//! here with a virtual terminal of the same size (80 × 30). Rows scrolled off
//! the top leave the terminal at once ([`Rows`], which holds no line whole)
//! and go to a bounded [`Capture`], so the terminal never holds more than one
//! screen, where Qwen keeps a 10 000-row scrollback and silently loses the
//! rows before it. The rendered lines are what a spooling capture's sink
//! receives: the whole output in the form the model's text is cut from.

use avt::Terminal;

use super::capture::{Capture, OutputLimits, Sink};
use super::rows::Rows;
use super::text::js_trim_end;

/// Columns of the terminal (`shellExecutionConfig.terminalWidth ?? 80`).
pub const COLUMNS: usize = 80;
/// Rows of the terminal (`shellExecutionConfig.terminalHeight ?? 30`).
pub const ROWS: usize = 30;

/// A terminal screen and the rows that scrolled off it.
pub struct Screen<'a> {
    terminal: Terminal,
    rows: Rows,
    lines: Capture<'a>,
}

impl std::fmt::Debug for Screen<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("lines", &self.lines)
            .finish_non_exhaustive()
    }
}

impl Screen<'static> {
    /// An empty screen whose scrolled-off text is kept within `limits`.
    #[must_use]
    pub fn new(limits: OutputLimits) -> Self {
        Screen::with(Capture::new(limits))
    }
}

impl<'a> Screen<'a> {
    /// An empty screen whose scrolled-off text is kept within `limits` and
    /// given whole to `sink` once it outgrows them.
    #[must_use]
    pub fn spooling(limits: OutputLimits, sink: Sink<'a>) -> Self {
        Screen::with(Capture::spooling(limits, sink))
    }

    fn with(lines: Capture<'a>) -> Self {
        Self {
            terminal: Terminal::with_scrollback(COLUMNS, ROWS, Some(0))
                .unwrap_or_else(|_| unreachable!("80 × 30 is a valid size")),
            rows: Rows::default(),
            lines,
        }
    }

    /// Writes decoded output to the terminal.
    pub fn write(&mut self, text: &str) {
        // convertEol: a line feed also returns the carriage. A pty sends
        // "\r\n" already; "\r\r\n" is the same thing.
        let text = text.replace('\n', "\r\n");
        self.terminal.feed_with(text.as_str(), &mut self.rows);
        self.keep();
    }

    fn keep(&mut self) {
        let ready = self.rows.take();
        if !ready.is_empty() {
            self.lines.push(ready.as_bytes());
        }
    }

    /// What the screen shows now: its rows as text, trailing empty rows
    /// left out (Qwen's live view, `serializePlainViewportToAnsiOutput`).
    #[must_use]
    pub fn viewport(&self) -> String {
        let rows: Vec<String> = self
            .terminal
            .screen()
            .visible_lines()
            .map(|line| line.text().trim_end().to_owned())
            .collect();
        let used = rows
            .iter()
            .rposition(|row| !row.is_empty())
            .map_or(0, |at| at + 1);
        rows[..used].join("\n")
    }

    /// The whole text: every row that scrolled off, then the screen, with the
    /// trailing white space trimmed.
    #[must_use]
    pub fn finish(mut self) -> String {
        self.rows.read_screen(&self.terminal);
        self.keep();
        js_trim_end(&self.lines.text()).to_owned()
    }

    /// Whether the sink has the whole text.
    #[must_use]
    pub fn spooled(&self) -> bool {
        self.lines.spooled()
    }

    /// Bytes of text held for rows that scrolled off.
    #[must_use]
    pub fn retained(&self) -> usize {
        self.lines.retained()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(chunks: &[&str]) -> String {
        let mut screen = Screen::new(OutputLimits::DEFAULT);
        for chunk in chunks {
            screen.write(chunk);
        }
        screen.finish()
    }

    #[test]
    fn crlf_from_the_pty_becomes_plain_lines() {
        assert_eq!(render(&["one\r\ntwo\r\n"]), "one\ntwo");
    }

    #[test]
    fn carriage_returns_and_erases_overwrite_as_on_a_terminal() {
        assert_eq!(render(&["50%\r100%\r\n"]), "100%");
        assert_eq!(render(&["abcdef\r\x1b[2Kxy\n"]), "xy");
        assert_eq!(render(&["\x1b[1;31mred\x1b[0m plain\n"]), "red plain");
    }

    #[test]
    fn long_lines_wrap_and_are_joined_again() {
        let long = "x".repeat(200);
        assert_eq!(render(&[&long, "\n"]), long);
    }

    #[test]
    fn rows_scrolled_off_are_kept_in_order() {
        let lines: Vec<String> = (0..100).map(|n| n.to_string()).collect();
        let text = lines.join("\n");
        assert_eq!(render(&[&text]), text);
    }

    #[test]
    fn the_viewport_shows_the_last_screen_only() {
        let mut screen = Screen::new(OutputLimits::DEFAULT);
        screen.write(&(0..40).map(|n| format!("{n}\n")).collect::<String>());
        let view = screen.viewport();
        assert!(view.starts_with("11\n") && view.ends_with("\n39"), "{view}");
    }
}
