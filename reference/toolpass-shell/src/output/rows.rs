//! Rows leaving a virtual terminal, as text: what `avt`'s `Transcript`
//! gives (soft-wrapped rows joined into their line, each line's trailing
//! white space trimmed, the screen read at a hard reset and at the end), but
//! handed on as the rows come. `Transcript` holds a line until it ends, so a
//! command printing 500 MB without a line feed would be held whole; here a
//! wrapped row is passed on at once and only its trailing blanks wait, up to
//! [`MAX_HELD_BLANKS`], to learn whether the line ends in them.

use avt::parser::Function;
use avt::{Line, Observation, Observer, Operation, Terminal};

/// Blanks held at the end of an unfinished line. Beyond this they are passed
/// on, so a line that ends in more blanks than this keeps them (where
/// `Transcript` would trim them, holding them all to find out).
pub const MAX_HELD_BLANKS: usize = 64 * 1024;

/// The observer: text ready to be taken, and the line under way.
#[derive(Debug, Default)]
pub struct Rows {
    ready: String,
    /// Trailing white space of the line under way.
    blanks: String,
    /// Whether a line is under way (text or blanks of it given, no line
    /// feed yet).
    open: bool,
}

impl Rows {
    /// Takes the text ready so far.
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.ready)
    }

    /// Reads the primary screen as `Transcript::finish` does, at the end of
    /// the output or before a hard reset clears it; empty lines it ends with
    /// are dropped as `Transcript` drops them.
    pub fn read_screen(&mut self, terminal: &Terminal) {
        let start = self.ready.len();
        let open_at_start = self.open;
        for line in terminal.primary_screen().all_lines() {
            self.push(line);
        }
        loop {
            let len = self.ready.len();
            let Some(before) = len.checked_sub(1).filter(|&at| at >= start) else {
                break;
            };
            let empty_line = self.ready.ends_with('\n')
                && if before == start {
                    !open_at_start
                } else {
                    self.ready[..before].ends_with('\n')
                };
            if !empty_line {
                break;
            }
            self.ready.pop();
        }
    }

    fn push(&mut self, line: &Line) {
        for c in line.chars() {
            self.open = true;
            if c.is_whitespace() {
                self.blanks.push(c);
            } else {
                self.ready.push_str(&self.blanks);
                self.blanks.clear();
                self.ready.push(c);
            }
        }
        if !line.is_wrapped() {
            self.blanks.clear();
            self.ready.push('\n');
            self.open = false;
        } else if self.blanks.len() > MAX_HELD_BLANKS {
            self.ready.push_str(&self.blanks);
            self.blanks.clear();
        }
    }
}

impl Observer for Rows {
    type Output = ();

    fn before(&mut self, context: &mut Observation<'_>, operation: &Operation) {
        if matches!(operation, Operation::Function(Function::Ris)) {
            self.read_screen(context.terminal());
        }
    }

    fn evicted(&mut self, _: &mut Observation<'_>, line: &Line) {
        self.push(line);
    }

    fn end(&mut self, _: &mut Observation<'_>) {}
}

#[cfg(test)]
mod tests {
    use avt::observer::Transcript;

    use super::*;

    /// The text `Transcript` gives for `chunks`, and the text `Rows` gives.
    fn both(chunks: &[&str]) -> (String, String) {
        let mut terminal = Terminal::with_scrollback(10, 3, Some(0)).unwrap();
        let mut transcript = Transcript::new();
        let mut lines = Vec::new();
        for chunk in chunks {
            lines.extend(terminal.feed_with(*chunk, &mut transcript));
        }
        lines.extend(transcript.finish(&terminal));
        let expected: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut terminal = Terminal::with_scrollback(10, 3, Some(0)).unwrap();
        let mut rows = Rows::default();
        let mut text = String::new();
        for chunk in chunks {
            terminal.feed_with(*chunk, &mut rows);
            text.push_str(&rows.take());
        }
        rows.read_screen(&terminal);
        text.push_str(&rows.take());
        (expected, text)
    }

    #[test]
    fn rows_give_what_transcript_gives() {
        for chunks in [
            &["a\r\nb\r\nc\r\nd\r\ne"][..],
            &["0123456789abcdefghij", "klmnop   \r\nq"],
            &["wrapped   ", "      ", "        \r\nnext\r\n"],
            &["x   y         z\r\n\r\n\r\n"],
            &["a\r\nb\r\n", "\x1bc", "after\r\n"],
            &["one row", "\x1bc", "\x1bc", "x"],
            &["\r\n\r\n\r\n\r\n\r\nlast"],
        ] {
            let (expected, text) = both(chunks);
            assert_eq!(text, expected, "{chunks:?}");
        }
    }

    #[test]
    fn a_line_without_end_is_passed_on_as_it_wraps() {
        let mut terminal = Terminal::with_scrollback(10, 3, Some(0)).unwrap();
        let mut rows = Rows::default();
        terminal.feed_with("x".repeat(1000).as_str(), &mut rows);
        let passed = rows.take();
        assert!(passed.len() >= 1000 - 30, "{}", passed.len());
        assert!(!passed.contains('\n'));
    }
}
