//! Bounded collection of a stream: its head and its tail, and a count of
//! what fell between them.
//!
//! Qwen Code keeps the first 64 MiB of a command's output and drops the rest
//! (`DEFAULT_MAX_BUFFERED_OUTPUT_BYTES` in `services/shellExecutionService.ts`),
//! so the end of a long build, where its errors are, is lost. The output
//! budget the model sees keeps the beginning and the end (`keep: 'both'` in
//! `tools/shell.ts`), so the collector keeps exactly those: at most
//! `head + tail` bytes whatever the command prints.
//!
//! The model is told that the spill file holds the whole output, so a
//! capture can also be given a sink: once the stream outgrows the limits it
//! hands the sink everything so far (the head and the tail, which are then
//! still all of it) and from then on every byte as it arrives. The sink does
//! the IO; the capture stays pure.

use std::collections::VecDeque;

use super::text::format_memory;

/// How much of one stream is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputLimits {
    /// Bytes kept from the start.
    pub head: usize,
    /// Bytes kept from the end.
    pub tail: usize,
}

impl OutputLimits {
    /// 1 MiB each way: far more than the shell's 30 000-character budget
    /// needs at either end, even in four-byte characters, and small enough
    /// that a hundred megabytes of output costs a few megabytes.
    pub const DEFAULT: Self = Self {
        head: 1 << 20,
        tail: 1 << 20,
    };
}

impl Default for OutputLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Where a capture sends the whole stream once it outgrows its limits.
pub type Sink<'a> = Box<dyn FnMut(&[u8]) + 'a>;

/// The head and tail of a byte stream.
pub struct Capture<'a> {
    limits: OutputLimits,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    sink: Option<Sink<'a>>,
    /// Whether the sink has had everything so far.
    spooling: bool,
}

impl std::fmt::Debug for Capture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("limits", &self.limits)
            .field("total", &self.total)
            .field("spooling", &self.spooling)
            .finish_non_exhaustive()
    }
}

impl Capture<'static> {
    /// An empty capture keeping what `limits` says.
    #[must_use]
    pub fn new(limits: OutputLimits) -> Self {
        Self {
            limits,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            sink: None,
            spooling: false,
        }
    }
}

impl<'a> Capture<'a> {
    /// An empty capture keeping what `limits` says, which gives `sink` the
    /// whole stream once it outgrows them.
    #[must_use]
    pub fn spooling(limits: OutputLimits, sink: Sink<'a>) -> Self {
        Capture {
            sink: Some(sink),
            ..Capture::new(limits)
        }
    }

    /// Takes the next bytes of the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        let kept = (self.limits.head + self.limits.tail) as u64;
        if !self.spooling && self.total + bytes.len() as u64 > kept {
            // The last moment the head and the tail are the whole stream.
            self.spool();
        }
        if self.spooling
            && let Some(sink) = &mut self.sink
        {
            sink(bytes);
        }
        self.total += bytes.len() as u64;
        let room = self.limits.head - self.head.len();
        let into_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        if bytes.len() >= self.limits.tail {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.limits.tail..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.limits.tail);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }

    /// Hands the sink, if there is one, everything so far and then every
    /// byte that follows, whether or not the stream outgrew the limits (the
    /// other stream of a run whose one stream did).
    pub fn spool(&mut self) {
        if self.spooling {
            return;
        }
        if let Some(sink) = &mut self.sink {
            self.spooling = true;
            let (front, back) = self.tail.as_slices();
            for part in [&self.head[..], front, back] {
                if !part.is_empty() {
                    sink(part);
                }
            }
        }
    }

    /// Whether the sink has the whole stream.
    #[must_use]
    pub fn spooled(&self) -> bool {
        self.spooling
    }

    /// Every byte the stream carried, kept or not.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes held now: never more than `head + tail`.
    #[must_use]
    pub fn retained(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// Bytes that fell between the head and the tail.
    #[must_use]
    pub fn omitted(&self) -> u64 {
        self.total - self.retained() as u64
    }

    /// The stream as text: lossy UTF-8 (U+FFFD for a bad sequence, as a
    /// JavaScript `TextDecoder` does), and when bytes were dropped, the head
    /// and the tail cut on character boundaries around a line naming what
    /// was dropped.
    #[must_use]
    pub fn text(&self) -> String {
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if self.omitted() == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let head = &self.head[..complete_prefix(&self.head)];
        let tail = &tail[tail.iter().take_while(|&&b| is_continuation(b)).count()..];
        format!(
            "{}\n{}\n{}",
            String::from_utf8_lossy(head),
            omission_notice(head.len(), tail.len(), self.total),
            String::from_utf8_lossy(tail),
        )
    }
}

/// The line standing where bytes were dropped, worded after Qwen's own
/// capture notice (`appendOutputCaptureLimitNotice`), which says the same of
/// the one end it keeps.
#[must_use]
pub fn omission_notice(head: usize, tail: usize, total: u64) -> String {
    let kept = (head + tail) as u64;
    format!(
        "[Output exceeded the maximum captured size of {}; kept the first {} and the last {} of {} and discarded the {} between them.]",
        format_memory(kept),
        format_memory(head as u64),
        format_memory(tail as u64),
        format_memory(total),
        format_memory(total - kept),
    )
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The length of `bytes` without a character cut off at its end.
fn complete_prefix(bytes: &[u8]) -> usize {
    // The last byte that starts a character, among the last four (the
    // longest UTF-8 sequence).
    let from = bytes.len().saturating_sub(4);
    let Some(lead) = bytes[from..]
        .iter()
        .rposition(|&b| !is_continuation(b))
        .map(|at| from + at)
    else {
        return bytes.len();
    };
    let needs = match bytes[lead] {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    };
    if bytes.len() - lead < needs {
        lead
    } else {
        bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(head: usize, tail: usize, chunks: &[&[u8]]) -> Capture<'static> {
        let mut capture = Capture::new(OutputLimits { head, tail });
        for chunk in chunks {
            capture.push(chunk);
        }
        capture
    }

    #[test]
    fn small_output_is_kept_whole() {
        let c = capture(4, 4, &[b"ab", b"cd", b"ef"]);
        assert_eq!(
            (c.text().as_str(), c.omitted(), c.total()),
            ("abcdef", 0, 6)
        );
    }

    #[test]
    fn long_output_keeps_head_and_tail_and_counts_the_middle() {
        let c = capture(3, 4, &[b"0123", b"456789", b"abcdef"]);
        assert_eq!((c.retained(), c.omitted(), c.total()), (7, 9, 16));
        let text = c.text();
        assert!(text.starts_with("012\n[Output exceeded"), "{text}");
        assert!(text.ends_with("]\ncdef"), "{text}");
    }

    #[test]
    fn one_huge_chunk_keeps_only_its_end_in_the_tail() {
        let c = capture(2, 2, &[&[b'x'; 1000], b"yz"]);
        assert_eq!(c.retained(), 4);
        assert!(c.text().ends_with("\nyz"));
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        // "é" is two bytes: the head ends inside one, the tail starts inside another.
        let c = capture(3, 3, &["aéé-éb".as_bytes()]);
        let text = c.text();
        assert!(text.starts_with("aé\n"), "{text}");
        assert!(text.ends_with("\néb"), "{text}");
        assert!(!text.contains('\u{FFFD}'), "{text}");
    }

    /// A capture whose sink appends to `whole`.
    fn spooling_into(head: usize, tail: usize, whole: &std::cell::RefCell<Vec<u8>>) -> Capture<'_> {
        Capture::spooling(
            OutputLimits { head, tail },
            Box::new(|bytes: &[u8]| whole.borrow_mut().extend_from_slice(bytes)),
        )
    }

    #[test]
    fn the_sink_gets_the_whole_stream_from_the_first_overflow_on() {
        let whole = std::cell::RefCell::new(Vec::new());
        let mut c = spooling_into(3, 4, &whole);
        c.push(b"0123");
        c.push(b"456");
        assert!(!c.spooled(), "seven bytes fit");
        assert!(whole.borrow().is_empty());
        c.push(b"789");
        c.push(b"abcdef");
        assert!(c.spooled());
        assert_eq!(c.retained(), 7);
        drop(c);
        assert_eq!(whole.into_inner(), b"0123456789abcdef");
    }

    #[test]
    fn spooling_a_stream_that_fits_hands_over_what_it_holds() {
        let whole = std::cell::RefCell::new(Vec::new());
        let mut c = spooling_into(2, 8, &whole);
        c.push(b"abcde");
        c.spool();
        c.push(b"f");
        c.spool();
        drop(c);
        assert_eq!(whole.into_inner(), b"abcdef");
    }
}
