//! The tail of an implementation's stderr: the last few KiB, kept in a
//! bounded buffer so that an implementation that floods stderr costs a
//! fixed amount of memory and is never blocked on a full pipe.

/// The last `capacity` bytes written, and how many came before them.
#[derive(Debug)]
pub(crate) struct StderrTail {
    capacity: usize,
    bytes: Vec<u8>,
    dropped: u64,
}

impl StderrTail {
    pub(crate) fn new(capacity: usize) -> StderrTail {
        StderrTail {
            capacity,
            bytes: Vec::new(),
            dropped: 0,
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        // Trimming only once the buffer holds twice the capacity keeps the
        // cost of a flood linear: each byte is moved at most once.
        if self.bytes.len() >= 2 * self.capacity.max(1) {
            let excess = self.bytes.len() - self.capacity;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// The tail as text: at most `capacity` bytes, starting on a line
    /// boundary when one is near, marked when earlier output was dropped.
    pub(crate) fn snapshot(&self) -> String {
        let start = self.bytes.len().saturating_sub(self.capacity);
        let mut tail = &self.bytes[start..];
        let dropped = self.dropped + start as u64;
        if dropped > 0 {
            // A cut through the middle of a line (or of a UTF-8 sequence)
            // reads as noise; start at the next line when there is one.
            if let Some(newline) = tail.iter().position(|&b| b == b'\n')
                && newline + 1 < tail.len()
            {
                tail = &tail[newline + 1..];
            }
        }
        let text = String::from_utf8_lossy(tail);
        if dropped > 0 {
            let skipped = dropped + (self.bytes.len() - start - tail.len()) as u64;
            format!("[{skipped} earlier bytes of stderr dropped]\n{text}")
        } else {
            text.into_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StderrTail;

    fn check(capacity: usize, chunks: &[&str], expect: &str) {
        let mut tail = StderrTail::new(capacity);
        for chunk in chunks {
            tail.push(chunk.as_bytes());
        }
        assert_eq!(tail.snapshot(), expect);
    }

    #[test]
    fn short_output_is_kept_whole() {
        check(16, &["hello\n", "world"], "hello\nworld");
    }

    #[test]
    fn long_output_keeps_the_last_lines_and_says_what_was_dropped() {
        check(
            10,
            &["line one\n", "line two\n", "three\n"],
            "[18 earlier bytes of stderr dropped]\nthree\n",
        );
    }

    #[test]
    fn a_cut_without_a_line_break_keeps_the_last_bytes() {
        check(
            4,
            &["abcdefghij"],
            "[6 earlier bytes of stderr dropped]\nghij",
        );
    }

    #[test]
    fn a_flood_stays_within_twice_the_capacity() {
        let mut tail = StderrTail::new(8 << 10);
        let chunk = vec![b'x'; 4096];
        for _ in 0..4096 {
            tail.push(&chunk);
            assert!(tail.bytes.len() < 2 * (8 << 10));
        }
        tail.push(b"\nlast words\n");
        assert!(tail.snapshot().ends_with("\nlast words\n"));
        assert!(tail.snapshot().len() <= (8 << 10) + 64);
    }
}
