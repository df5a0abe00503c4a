//! Bounded line splitting without IO: [`LineSplitter`] cuts a byte stream
//! into lines and never holds more than its limit, however long a line is.
//!
//! It is sans-IO so that both sides of the wire share it: the server reads
//! its stdin through [`crate::read_message_limited`] (blocking `BufRead`),
//! the runner reads an implementation's stdout with tokio's `AsyncBufRead`.
//! Both hand it whatever `fill_buf` returned and `consume` what it says it
//! took, so a line's bytes are never read twice and a peer that sends one
//! endless line costs the limit in memory, not the line.

/// The longest line [`crate::read_message`] accepts, and the reference
/// server's default request limit: 64 MiB, far above any real tool call
/// (`new_string` and `content` are whole files) and far below what a
/// machine running several servers can spare for one line.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// What a [`LineSplitter::push`] completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// A whole line: [`LineSplitter::line`] holds it without its `\n` and
    /// without a `\r` right before it.
    Line,
    /// The line passed the limit. [`LineSplitter::line`] holds its first
    /// `limit` bytes; the splitter now drops the rest of the line, up to
    /// and including its `\n`, and says [`Split::Skipped`] when it has.
    TooLong,
    /// The end of a line that was [`Split::TooLong`]: the next byte starts
    /// a new line.
    Skipped,
}

/// Where the splitter is in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Collecting a line (possibly none of it yet).
    Collecting,
    /// The last push completed a line; the next one starts afresh.
    Complete,
    /// Dropping the rest of an overlong line.
    Skipping,
}

/// Splits a byte stream into lines of at most `limit` bytes each, a line
/// end (`\n`, or `\r\n`) not counted.
///
/// ```
/// use toolpass_protocol::{LineSplitter, Split};
///
/// let mut lines = LineSplitter::new(4);
/// let input = b"abcd\r\nabcde\nz\n";
/// assert_eq!(lines.push(input), (6, Some(Split::Line)));
/// assert_eq!(lines.line(), b"abcd");
/// // Five bytes: reported as soon as the fifth arrives, before the newline.
/// assert_eq!(lines.push(&input[6..]), (5, Some(Split::TooLong)));
/// assert_eq!(lines.push(&input[11..]), (1, Some(Split::Skipped)));
/// assert_eq!(lines.push(&input[12..]), (2, Some(Split::Line)));
/// assert_eq!(lines.line(), b"z");
/// ```
#[derive(Debug, Clone)]
pub struct LineSplitter {
    limit: usize,
    line: Vec<u8>,
    state: State,
}

impl LineSplitter {
    /// A splitter for lines of at most `limit` bytes.
    pub fn new(limit: usize) -> LineSplitter {
        LineSplitter {
            limit,
            line: Vec::new(),
            state: State::Collecting,
        }
    }

    /// The longest line accepted, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Takes bytes from the start of `input` and says how many it took and
    /// what they completed, if anything. It takes at most up to the first
    /// `\n`, so one push completes at most one line; the caller passes the
    /// rest (or the next read) to the next push.
    ///
    /// It stores at most `limit + 1` bytes (the one for a `\r` that may turn
    /// out to end the line), so its memory is bounded by the limit.
    pub fn push(&mut self, input: &[u8]) -> (usize, Option<Split>) {
        let newline = memchr::memchr(b'\n', input);
        let body = newline.map_or(input, |at| &input[..at]);
        match self.state {
            State::Skipping => {
                return match newline {
                    Some(at) => {
                        // The stored prefix stays readable until the next push.
                        self.state = State::Complete;
                        (at + 1, Some(Split::Skipped))
                    }
                    None => (input.len(), None),
                };
            }
            State::Complete => {
                self.line.clear();
                self.state = State::Collecting;
            }
            State::Collecting => {}
        }
        let total = self.line.len() + body.len();
        let ends_in_cr = body.last().or(self.line.last()) == Some(&b'\r');
        // A `\r` at the very end may be the first half of `\r\n`: it does
        // not count until a byte other than `\n` follows it.
        if total - usize::from(ends_in_cr) > self.limit {
            let keep = self.limit.saturating_sub(self.line.len()).min(body.len());
            self.extend(&body[..keep]);
            // A stored `\r` past the limit turned out not to end the line.
            self.line.truncate(self.limit);
            self.state = State::Skipping;
            // The newline (if this input has it) is left for the next push,
            // which reports the skipped line's end.
            return (body.len(), Some(Split::TooLong));
        }
        self.extend(body);
        match newline {
            Some(at) => {
                if self.line.last() == Some(&b'\r') {
                    self.line.pop();
                }
                self.state = State::Complete;
                (at + 1, Some(Split::Line))
            }
            None => (input.len(), None),
        }
    }

    /// The bytes of the current line: the whole line after [`Split::Line`],
    /// its first `limit` bytes after [`Split::TooLong`] and
    /// [`Split::Skipped`], what has arrived so far otherwise.
    pub fn line(&self) -> &[u8] {
        &self.line
    }

    /// The start of a line that has not ended (nor overflowed): what is
    /// left over when the input ends. `None` when no such bytes are held.
    pub fn unfinished(&self) -> Option<&[u8]> {
        (self.state == State::Collecting && !self.line.is_empty()).then_some(&self.line[..])
    }

    /// Whether the splitter is dropping the rest of an overlong line.
    pub fn is_skipping(&self) -> bool {
        self.state == State::Skipping
    }

    /// Appends without letting the buffer's capacity grow past what the
    /// limit allows: `Vec`'s doubling would otherwise reserve up to twice
    /// the limit for a line just over half of it.
    fn extend(&mut self, bytes: &[u8]) {
        let needed = self.line.len() + bytes.len();
        if needed > self.line.capacity() {
            let ceiling = self.limit.saturating_add(1).max(needed);
            let target = needed.max(self.line.capacity() * 2).min(ceiling);
            self.line.reserve_exact(target - self.line.len());
        }
        self.line.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each push completed, with the line it left.
    type Splits = Vec<(Split, Vec<u8>)>;

    /// Pushes all of `input`, `chunk` bytes at a time, and lists what each
    /// push completed with the line it left.
    fn split(limit: usize, input: &[u8], chunk: usize) -> Splits {
        let mut lines = LineSplitter::new(limit);
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let end = chunk.min(rest.len());
            let (taken, split) = lines.push(&rest[..end]);
            assert!(taken > 0 || split.is_some(), "no progress on {rest:?}");
            assert!(lines.line().len() <= limit + 1, "stored past the limit");
            out.extend(split.map(|s| (s, lines.line().to_vec())));
            rest = &rest[taken..];
        }
        out
    }

    #[test]
    fn a_line_at_the_limit_passes_one_byte_more_fails_and_crlf_does_not_count() {
        let line = |split, bytes: &[u8]| (split, bytes.to_vec());
        let cases: [(&[u8], Splits); 2] = [
            (
                b"abc\nabcd\n",
                vec![
                    line(Split::Line, b"abc"),
                    line(Split::TooLong, b"abc"),
                    line(Split::Skipped, b"abc"),
                ],
            ),
            // A lone `\r` counts; one that turns out not to end the line is
            // not kept past the limit.
            (
                b"abc\r\nab\rc\nabc\rX\n",
                vec![
                    line(Split::Line, b"abc"),
                    line(Split::TooLong, b"ab\r"),
                    line(Split::Skipped, b"ab\r"),
                    line(Split::TooLong, b"abc"),
                    line(Split::Skipped, b"abc"),
                ],
            ),
        ];
        for (input, expected) in cases {
            for chunk in [1, 2, 3, 64] {
                assert_eq!(split(3, input, chunk), expected, "chunk {chunk}");
            }
        }
    }

    #[test]
    fn an_endless_line_is_reported_before_its_end_and_never_stored() {
        let mut lines = LineSplitter::new(10);
        assert_eq!(lines.push(&[b'x'; 8]), (8, None));
        assert_eq!(lines.push(&[b'x'; 8]), (8, Some(Split::TooLong)));
        for _ in 0..1000 {
            assert_eq!(lines.push(&[b'x'; 4096]), (4096, None));
        }
        assert!(lines.line().len() <= 10 && lines.line.capacity() <= 11);
        assert!(lines.is_skipping() && lines.unfinished().is_none());
        assert_eq!(lines.push(b"\nok\n"), (1, Some(Split::Skipped)));
        assert_eq!(lines.push(b"ok\n"), (3, Some(Split::Line)));
        assert_eq!(lines.line(), b"ok");
    }

    #[test]
    fn what_is_left_at_the_end_is_unfinished() {
        let mut lines = LineSplitter::new(10);
        assert_eq!(lines.unfinished(), None);
        lines.push(b"par");
        assert_eq!(lines.unfinished(), Some(&b"par"[..]));
        lines.push(b"t\n");
        assert_eq!(lines.unfinished(), None);
    }
}
