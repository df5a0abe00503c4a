//! What a command printed, collected within bounds and turned into the text
//! Qwen Code shows: the pure half of the runner (no IO, no clock).
//!
//! - Pipes (`childProcessFallback`): stdout and stderr are decoded
//!   separately and joined at the end, stdout first, then `strip-ansi` and
//!   `trim`.
//! - A pty (`executeWithPty`): one stream, rendered through a terminal
//!   ([`screen`]), then `trimEnd`.
//! - Either way, a NUL byte among the first 512 bytes (`isBinary` in
//!   `utils/textUtils.ts`) marks the output binary: text stops there and
//!   only bytes are counted.
//!
//! A spooling collector also gives the whole output to sinks once it
//! outgrows its limits: for pipes each stream's bytes as written, for a pty
//! the rendered lines (see [`capture`]).

pub mod capture;
pub mod decode;
pub mod rows;
pub mod screen;
pub mod strip;
pub mod text;

use capture::{Capture, OutputLimits, Sink};
use decode::Utf8Stream;
use screen::Screen;
use text::{format_memory, js_trim, strip_ansi};

/// Bytes Qwen inspects for a NUL (`isBinary(data, sampleSize = 512)`).
pub const BINARY_SNIFF_BYTES: usize = 512;

/// Characters of a live update for piped output (Qwen's preview keeps the
/// last 65 536).
pub const PREVIEW_CHARS: usize = 65_536;

/// Which stream bytes came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output, or the pty (one stream for both).
    Stdout,
    /// Standard error (pipes only).
    Stderr,
}

/// The binary test over the first bytes of all streams together.
#[derive(Debug, Default)]
struct Sniff {
    seen: usize,
    binary: bool,
}

impl Sniff {
    /// Looks at the next bytes; true once the output is known binary.
    fn look(&mut self, bytes: &[u8]) -> bool {
        if !self.binary && self.seen < BINARY_SNIFF_BYTES {
            let sample = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES - self.seen)];
            self.seen += sample.len();
            self.binary = sample.contains(&0);
        }
        self.binary
    }
}

/// Output collected from a running command.
#[derive(Debug)]
pub struct Collector<'a> {
    kind: Kind<'a>,
    sniff: Sniff,
    total: u64,
}

#[derive(Debug)]
enum Kind<'a> {
    Pipes {
        stdout: Capture<'a>,
        stderr: Capture<'a>,
    },
    Pty {
        decoder: Utf8Stream,
        screen: Box<Screen<'a>>,
    },
}

impl Collector<'static> {
    /// A collector for piped stdout and stderr, each kept within `limits`.
    #[must_use]
    pub fn pipes(limits: OutputLimits) -> Self {
        Self::with(Kind::Pipes {
            stdout: Capture::new(limits),
            stderr: Capture::new(limits),
        })
    }

    /// A collector for a pty, its text kept within `limits`.
    #[must_use]
    pub fn pty(limits: OutputLimits) -> Self {
        Self::with(Kind::Pty {
            decoder: Utf8Stream::default(),
            screen: Box::new(Screen::new(limits)),
        })
    }
}

impl<'a> Collector<'a> {
    /// As [`Collector::pipes`], each stream given whole to its sink once
    /// either outgrows `limits`.
    #[must_use]
    pub fn pipes_spooling(limits: OutputLimits, stdout: Sink<'a>, stderr: Sink<'a>) -> Self {
        Self::with(Kind::Pipes {
            stdout: Capture::spooling(limits, stdout),
            stderr: Capture::spooling(limits, stderr),
        })
    }

    /// As [`Collector::pty`], the rendered lines given whole to `sink` once
    /// they outgrow `limits`.
    #[must_use]
    pub fn pty_spooling(limits: OutputLimits, sink: Sink<'a>) -> Self {
        Self::with(Kind::Pty {
            decoder: Utf8Stream::default(),
            screen: Box::new(Screen::spooling(limits, sink)),
        })
    }

    fn with(kind: Kind<'a>) -> Self {
        Self {
            kind,
            sniff: Sniff::default(),
            total: 0,
        }
    }

    /// Takes bytes the command wrote.
    pub fn push(&mut self, stream: Stream, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.sniff.look(bytes) {
            return;
        }
        match &mut self.kind {
            Kind::Pipes { stdout, stderr } => match stream {
                Stream::Stdout => stdout.push(bytes),
                Stream::Stderr => stderr.push(bytes),
            },
            Kind::Pty { decoder, screen } => {
                let mut text = String::new();
                decoder.decode(bytes, &mut text);
                screen.write(&text);
            }
        }
    }

    /// Every byte the command wrote.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether the output was found binary.
    #[must_use]
    pub fn binary(&self) -> bool {
        self.sniff.binary
    }

    /// Bytes the collector holds for the final text: bounded by the limits
    /// (twice for pipes, one capture per stream) whatever was written.
    #[must_use]
    pub fn retained(&self) -> usize {
        match &self.kind {
            Kind::Pipes { stdout, stderr } => stdout.retained() + stderr.retained(),
            Kind::Pty { screen, .. } => screen.retained(),
        }
    }

    /// Whether the sinks have the whole output: some text outgrew the limits.
    #[must_use]
    pub fn spooled(&self) -> bool {
        match &self.kind {
            Kind::Pipes { stdout, stderr } => stdout.spooled() || stderr.spooled(),
            Kind::Pty { screen, .. } => screen.spooled(),
        }
    }

    /// Bytes written but not kept (the middle of a long output).
    #[must_use]
    pub fn omitted(&self) -> u64 {
        match &self.kind {
            Kind::Pipes { stdout, stderr } => stdout.omitted() + stderr.omitted(),
            Kind::Pty { .. } => 0,
        }
    }

    /// The live view for an update: the screen for a pty, the end of the
    /// output so far for pipes, or Qwen's progress line for binary output.
    #[must_use]
    pub fn snapshot(&self) -> String {
        if self.binary() {
            return format!(
                "[Receiving binary output... {} received]",
                format_memory(self.total)
            );
        }
        match &self.kind {
            Kind::Pipes { stdout, stderr } => {
                let text = strip_ansi(&join_streams(&stdout.text(), &stderr.text()));
                let skip = text.chars().count().saturating_sub(PREVIEW_CHARS);
                text.chars().skip(skip).collect()
            }
            Kind::Pty { screen, .. } => screen.viewport(),
        }
    }

    /// The final text, as Qwen's `result.output` has it.
    #[must_use]
    pub fn finish(self) -> String {
        match self.kind {
            Kind::Pipes {
                mut stdout,
                mut stderr,
            } => {
                // The text is made of both streams: when one went to its
                // sink, so does the other.
                if stdout.spooled() || stderr.spooled() {
                    stdout.spool();
                    stderr.spool();
                }
                let joined = join_streams(&stdout.text(), &stderr.text());
                js_trim(&strip_ansi(&joined)).to_owned()
            }
            Kind::Pty {
                mut decoder,
                mut screen,
            } => {
                let mut rest = String::new();
                if !self.sniff.binary {
                    decoder.finish(&mut rest);
                    screen.write(&rest);
                }
                screen.finish()
            }
        }
    }
}

/// `stdout + (stderr ? (stdout ? separator : "") + stderr : "")`, the
/// separator a line feed unless stdout ends with one.
fn join_streams(stdout: &str, stderr: &str) -> String {
    let separator = stream_separator(stdout.as_bytes().last().copied(), !stderr.is_empty());
    format!("{stdout}{separator}{stderr}")
}

/// What goes between stdout, whose last byte is `stdout_last`, and stderr:
/// Qwen's line feed when both have text and stdout does not end a line.
#[must_use]
pub fn stream_separator(stdout_last: Option<u8>, stderr: bool) -> &'static str {
    match stdout_last {
        Some(last) if stderr && last != b'\n' => "\n",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piped_streams_are_joined_stdout_first_stripped_and_trimmed() {
        let mut c = Collector::pipes(OutputLimits::DEFAULT);
        c.push(Stream::Stderr, b"warning\n");
        c.push(Stream::Stdout, b"  \x1b[32mok\x1b[0m");
        assert_eq!(c.finish(), "ok\nwarning");
    }

    #[test]
    fn pty_output_is_rendered_and_trimmed_at_the_end_only() {
        let mut c = Collector::pty(OutputLimits::DEFAULT);
        c.push(Stream::Stdout, b"\r\n  indented\r\nnext\r\n\r\n");
        assert_eq!(c.finish(), "\n  indented\nnext");
    }

    #[test]
    fn a_nul_in_the_first_512_bytes_makes_output_binary() {
        let mut c = Collector::pipes(OutputLimits::DEFAULT);
        c.push(Stream::Stdout, b"text ");
        c.push(Stream::Stdout, b"\0\x01\x02");
        c.push(Stream::Stdout, b"more");
        assert!(c.binary());
        assert_eq!(c.total(), 12);
        assert_eq!(c.snapshot(), "[Receiving binary output... 0.0 KB received]");
        assert_eq!(c.finish(), "text");
    }

    #[test]
    fn a_nul_after_512_bytes_is_text() {
        let mut c = Collector::pipes(OutputLimits::DEFAULT);
        c.push(Stream::Stdout, &[b'a'; 600]);
        c.push(Stream::Stdout, b"\0");
        assert!(!c.binary());
    }

    #[test]
    fn the_pipe_snapshot_is_the_end_of_the_output() {
        let mut c = Collector::pipes(OutputLimits::DEFAULT);
        c.push(Stream::Stdout, &vec![b'x'; PREVIEW_CHARS + 10]);
        c.push(Stream::Stdout, b"END");
        let view = c.snapshot();
        assert_eq!(view.chars().count(), PREVIEW_CHARS);
        assert!(view.ends_with("xEND"));
    }
}
