//! Heap check for bounded reading: a 200 MB line from a generator reader
//! costs the limit in memory, not the line.
//!
//! A count, not a timing: dhat's global allocator records the peak of live
//! heap bytes while the profiler runs. The binary holds a single test
//! because the allocator's counts are process-wide.

use std::io::{self, BufRead, BufReader, Read};

use toolpass_protocol::{Message, ReadErrorKind, read_message_limited};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// 200 MB of `x`, a newline, then one small request: what a peer sending a
/// huge line produces, without the test holding the line itself.
struct Generator {
    left: usize,
    tail: &'static [u8],
}

impl Read for Generator {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left > 0 {
            let n = buf.len().min(self.left);
            buf[..n].fill(b'x');
            self.left -= n;
            return Ok(n);
        }
        let n = buf.len().min(self.tail.len());
        buf[..n].copy_from_slice(&self.tail[..n]);
        self.tail = &self.tail[n..];
        Ok(n)
    }
}

const LINE_BYTES: usize = 200_000_000;
const LIMIT: usize = 8 << 20;
/// The reader's own buffer and the error's quoted start, with room to spare.
const SLACK: usize = 64 << 10;

#[test]
fn a_200_mb_line_costs_the_limit_not_the_line() {
    let generator = Generator {
        left: LINE_BYTES,
        tail: b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
    };
    let profiler = dhat::Profiler::builder().testing().build();
    let mut reader = BufReader::new(generator);
    let error = read_message_limited(&mut reader, LIMIT).unwrap_err();
    assert_eq!(error.kind(), ReadErrorKind::TooLong);
    // The rest of the line was read past: the next message is intact.
    let next = read_message_limited(&mut reader, LIMIT).unwrap();
    assert!(matches!(next, Some(Message::Request(_))), "{next:?}");
    assert!(reader.fill_buf().unwrap().is_empty());
    let peak = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    // Shown with `--nocapture`, for the record.
    eprintln!("peak {peak} bytes reading a {LINE_BYTES}-byte line with a {LIMIT}-byte limit");
    assert!(
        peak <= LIMIT + SLACK,
        "peak {peak} bytes for a limit of {LIMIT}"
    );
    assert!(peak > LIMIT, "the line was not buffered up to the limit");
}
