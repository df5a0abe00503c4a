//! Streaming UTF-8 decoding: chunks may end inside a character, so the
//! unfinished bytes wait for the next chunk; a bad sequence becomes U+FFFD,
//! as JavaScript's `TextDecoder` (without `fatal`) makes it.

/// A decoder carrying at most three bytes between chunks.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    carry: Vec<u8>,
}

impl Utf8Stream {
    /// Decodes `bytes`, appending the text to `out`.
    pub fn decode(&mut self, bytes: &[u8], out: &mut String) {
        let joined;
        let mut input = if self.carry.is_empty() {
            bytes
        } else {
            self.carry.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.carry);
            &joined[..]
        };
        loop {
            match std::str::from_utf8(input) {
                Ok(text) => {
                    out.push_str(text);
                    return;
                }
                Err(e) => {
                    let (valid, rest) = input.split_at(e.valid_up_to());
                    // Valid by construction: `valid_up_to` says so.
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            input = &rest[bad..];
                        }
                        None => {
                            self.carry = rest.to_vec();
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Ends the stream: an unfinished character becomes U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if !self.carry.is_empty() {
            self.carry.clear();
            out.push('\u{FFFD}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_between_chunks_are_joined() {
        let bytes = "é😀".as_bytes();
        let mut decoder = Utf8Stream::default();
        let mut out = String::new();
        for byte in bytes {
            decoder.decode(std::slice::from_ref(byte), &mut out);
        }
        decoder.finish(&mut out);
        assert_eq!(out, "é😀");
    }

    #[test]
    fn bad_bytes_and_an_unfinished_end_become_replacement_characters() {
        let mut decoder = Utf8Stream::default();
        let mut out = String::new();
        decoder.decode(b"a\xffb\xe2\x82", &mut out);
        decoder.finish(&mut out);
        assert_eq!(out, "a\u{FFFD}b\u{FFFD}");
    }
}
