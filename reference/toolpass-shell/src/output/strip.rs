//! `strip-ansi` on a stream: the text [`strip_ansi`](super::text::strip_ansi)
//! gives for the whole, given chunk by chunk, so the spill file of a long
//! piped output is stripped as its in-memory text is without holding it.
//!
//! Every match of Qwen's pattern starts at ESC or U+009B, and what follows
//! such a start decides the match only once enough has arrived: an OSC
//! (`ESC ]`) runs to its first terminator, however far; a CSI or ESC
//! sequence ends at most one character after its run of parameter
//! characters. Text up to the first undecided start goes out; the rest
//! waits for more, or for the end. An OSC left open for more than
//! [`MAX_HELD`] bytes is decided as if it never closed, so memory stays
//! bounded: only an OSC longer than that strips differently from the whole.

use std::sync::LazyLock;

use regex::Regex;

/// Bytes held waiting for an open sequence to be decided.
pub const MAX_HELD: usize = 1 << 20;

/// The CSI / ESC half of Qwen's pattern, anchored at its start.
static CSI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[\x{1B}\x{9B}][\[\]()#;?]*(?:[0-9]{1,4}(?:[;:][0-9]{0,4})*)?[0-9A-PR-TZcf-nq-uy=><~]",
    )
    .unwrap_or_else(|_| unreachable!("the CSI pattern is valid"))
});

/// Characters a CSI / ESC sequence may consume before its final one.
fn is_parameter(c: char) -> bool {
    matches!(c, '[' | ']' | '(' | ')' | '#' | ';' | '?' | ':' | '0'..='9')
}

fn is_start(c: char) -> bool {
    matches!(c, '\u{1B}' | '\u{9B}')
}

/// What a start decides to.
enum Verdict {
    /// Not decided yet: wait for more text.
    Wait,
    /// A sequence ending at this byte offset: dropped.
    Sequence(usize),
    /// No sequence: the start character is text.
    Text,
}

/// The stripper: text not yet decided.
#[derive(Debug, Default)]
pub struct AnsiStream {
    pending: String,
}

impl AnsiStream {
    /// Strips the next text, appending what is decided to `out`.
    pub fn push(&mut self, text: &str, out: &mut String) {
        if self.pending.is_empty() && !text.contains(is_start) {
            out.push_str(text);
            return;
        }
        self.pending.push_str(text);
        self.settle(out, false);
    }

    /// Ends the stream: everything held is decided.
    pub fn finish(&mut self, out: &mut String) {
        self.settle(out, true);
    }

    fn settle(&mut self, out: &mut String, end: bool) {
        let text = self.pending.as_str();
        let mut from = 0;
        while let Some(found) = text[from..].find(is_start) {
            let start = from + found;
            out.push_str(&text[from..start]);
            match verdict(&text[start..], end) {
                Verdict::Wait => {
                    from = start;
                    break;
                }
                Verdict::Sequence(len) => from = start + len,
                Verdict::Text => {
                    let len = text[start..].chars().next().map_or(1, char::len_utf8);
                    out.push_str(&text[start..start + len]);
                    from = start + len;
                }
            }
        }
        if text[from..].find(is_start).is_none() {
            out.push_str(&text[from..]);
            from = text.len();
        }
        self.pending.drain(..from);
    }
}

/// What `text`, which starts with ESC or U+009B, starts with. `end`: no
/// more text follows.
fn verdict(text: &str, end: bool) -> Verdict {
    let decide_now = end || text.len() > MAX_HELD;
    let mut chars = text.chars();
    let start = chars.next();
    let rest = chars.as_str();
    if start == Some('\u{1B}') {
        if rest.is_empty() && !decide_now {
            return Verdict::Wait;
        }
        if let Some(body) = rest.strip_prefix(']') {
            if let Some(len) = osc_end(body) {
                return Verdict::Sequence(2 + len);
            }
            if !decide_now {
                return Verdict::Wait;
            }
        }
    }
    if !decide_now && rest.chars().all(is_parameter) {
        return Verdict::Wait;
    }
    CSI.find(text)
        .map_or(Verdict::Text, |m| Verdict::Sequence(m.end()))
}

/// Where the first OSC terminator (BEL, ESC `\`, U+009C) in `body` ends.
fn osc_end(body: &str) -> Option<usize> {
    body.char_indices().find_map(|(at, c)| match c {
        '\u{7}' | '\u{9C}' => Some(at + c.len_utf8()),
        '\u{1B}' if body[at + 1..].starts_with('\\') => Some(at + 2),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::output::text::strip_ansi;

    fn streamed(chunks: &[&str]) -> String {
        let mut stream = AnsiStream::default();
        let mut out = String::new();
        for chunk in chunks {
            stream.push(chunk, &mut out);
        }
        stream.finish(&mut out);
        out
    }

    #[test]
    fn sequences_split_between_chunks_are_stripped() {
        assert_eq!(streamed(&["a\x1b", "[3", "1mred\x1b[0", "m"]), "ared");
        assert_eq!(streamed(&["\x1b]0;ti", "tle\x1b", "\\text"]), "text");
        assert_eq!(streamed(&["\u{9b}", "31mc1"]), "c1");
    }

    #[test]
    fn an_unclosed_osc_is_decided_at_the_end() {
        let whole = "\x1b]0;t never closed";
        assert_eq!(streamed(&[whole]), strip_ansi(whole));
        assert_eq!(streamed(&["x\x1b"]), "x\x1b");
    }

    proptest! {
        #[test]
        fn any_chunking_strips_as_the_whole_does(
            pieces in proptest::collection::vec(
                prop::sample::select(vec![
                    "\x1b", "]", "[", "\x07", "\\", "\u{9c}", "\u{9b}", "0", "12", ";",
                    ":", "?", "m", "K", "x", "é", "\n", " ",
                ]),
                0..40,
            ),
            cuts in proptest::collection::vec(0usize..40, 0..6),
        ) {
            let whole: String = pieces.concat();
            let mut bounds: Vec<usize> = cuts
                .into_iter()
                .map(|c| c.min(pieces.len()))
                .map(|c| pieces[..c].iter().map(|p| p.len()).sum())
                .collect();
            bounds.push(0);
            bounds.push(whole.len());
            bounds.sort_unstable();
            let chunks: Vec<&str> = bounds.windows(2).map(|w| &whole[w[0]..w[1]]).collect();
            prop_assert_eq!(streamed(&chunks), strip_ansi(&whole));
        }
    }
}
