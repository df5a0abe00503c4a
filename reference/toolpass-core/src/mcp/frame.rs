//! What the MCP client can tell of a message it will not parse whole: one
//! over the message limit, or nested deeper than a parser may recurse.
//! Such a message is read byte by byte ([`Scanner`]), never built, and
//! its top-level `id` is enough to fail the request it answers at once
//! instead of leaving it to its timeout. Depths are counted here, without
//! recursion, so no nesting a server sends can overflow a stack, and on
//! bytes, so this crate needs no JSON parser.

/// The MCP SDK's cap on one message (a line over stdio), its newline
/// included: the Rust SDK's `DEFAULT_MAX_LINE_LENGTH`.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting of a message the client parses. serde_json refuses
/// past 128 levels; a message deeper than this is pruned or refused first.
pub const MAX_MESSAGE_DEPTH: usize = 100;

/// Longest top-level `id` value kept, in bytes: longer is no id a client
/// sent.
const MAX_ID_BYTES: usize = 256;

/// What a [`Scanner`] saw of one message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    /// The top-level `id` as written (JSON text), when it is a number or
    /// a string.
    pub id: Option<String>,
    /// Whether it has a top-level `method` (a request or notification, so
    /// no answer to anything).
    pub has_method: bool,
    /// How deep its arrays and objects nest (0 for a scalar).
    pub depth: usize,
    /// Its length in bytes.
    pub bytes: usize,
}

impl Frame {
    /// The id of the request this message answers, when it is an answer.
    #[must_use]
    pub fn answer_id(&self) -> Option<&str> {
        self.id.as_deref().filter(|_| !self.has_method)
    }
}

/// Which top-level key's value is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Id,
    Method,
    Other,
}

/// Reads a JSON message piece by piece, keeping only its top-level `id`,
/// whether it has a `method`, its depth and its length. It assumes JSON
/// and never fails: on anything else what it reports is merely unreliable.
#[derive(Debug, Default)]
pub struct Scanner {
    frame: Frame,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// Inside the root object, where a key comes next.
    expect_key: bool,
    /// The top-level key being read, while inside its string.
    key: Option<Vec<u8>>,
    last_key: Option<Key>,
    /// The top-level `id` value being read; `None` once it is too long.
    id: Option<Vec<u8>>,
    id_raw: Option<Vec<u8>>,
}

impl Scanner {
    /// A scanner at the start of a message.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next bytes of the message.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.frame.bytes += bytes.len();
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if let Some(id) = &mut self.id {
            id.push(b);
            if id.len() > MAX_ID_BYTES {
                self.id = None;
                self.last_key = Some(Key::Other);
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if let Some(key) = self.key.take() {
                    self.last_key = Some(match key.as_slice() {
                        b"id" => Key::Id,
                        b"method" => Key::Method,
                        _ => Key::Other,
                    });
                    if self.last_key == Some(Key::Method) {
                        self.frame.has_method = true;
                    }
                }
            } else if let Some(key) = &mut self.key {
                // Longer than any key looked for: keep it short.
                if key.len() < 8 {
                    key.push(b);
                } else {
                    key.clear();
                    key.extend_from_slice(b"(long)");
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.key = Some(Vec::new());
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.frame.depth = self.frame.depth.max(self.depth);
                if self.depth == 1 && b == b'{' {
                    self.expect_key = true;
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 && self.last_key == Some(Key::Id) && self.id.is_none() => {
                self.id = Some(Vec::new());
            }
            b',' if self.depth == 1 => {
                self.end_value();
                self.expect_key = true;
            }
            _ => {}
        }
    }

    /// A top-level value ended (at a `,` or the root's `}`, both already
    /// pushed onto the id being read).
    fn end_value(&mut self) {
        if let Some(mut id) = self.id.take() {
            id.pop();
            self.id_raw = Some(id);
        }
        self.last_key = None;
    }

    /// What was seen of the message.
    #[must_use]
    pub fn finish(mut self) -> Frame {
        self.frame.id = self
            .id_raw
            .and_then(|raw| String::from_utf8(raw.trim_ascii().to_vec()).ok())
            .filter(|id| is_scalar_id(id));
        self.frame
    }
}

/// Whether `id`, JSON text, is a string or a number (the ids JSON-RPC
/// allows besides null): a full string literal, or a number's characters.
fn is_scalar_id(id: &str) -> bool {
    let quoted = id
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .is_some_and(|inner| !inner.bytes().any(|b| b < 0x20));
    let number = !id.is_empty()
        && id.starts_with(|c: char| c == '-' || c.is_ascii_digit())
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    quoted || number
}

/// `json` with every array or object that opens deeper than `max_depth`
/// replaced by `null`, so the result nests at most `max_depth` levels and
/// is still JSON when `json` was. Counts without recursion.
#[must_use]
pub fn prune(json: &[u8], max_depth: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    // While skipping a pruned value: the depth it opened at.
    let mut skipping: Option<usize> = None;
    for &b in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'{' || b == b'[' {
            depth += 1;
            if skipping.is_none() && depth > max_depth {
                skipping = Some(depth);
                out.extend_from_slice(b"null");
            }
        } else if b == b'}' || b == b']' {
            let closed = depth;
            depth = depth.saturating_sub(1);
            if skipping == Some(closed) {
                skipping = None;
                continue;
            }
        }
        if skipping.is_none() {
            out.push(b);
        }
    }
    out
}

/// What the client answers in place of a message over [`MAX_MESSAGE_BYTES`].
#[must_use]
pub fn oversized_message(bytes: usize) -> String {
    format!(
        "the MCP server's answer is {bytes} bytes, over the client's message limit of \
         {MAX_MESSAGE_BYTES} bytes (16 MiB); it was dropped unread"
    )
}

/// What the client answers in place of a message nested deeper than
/// [`MAX_MESSAGE_DEPTH`].
#[must_use]
pub fn too_deep_message(depth: usize) -> String {
    format!(
        "the MCP server's answer nests {depth} levels deep, over the client's limit of \
         {MAX_MESSAGE_DEPTH}; it was dropped unread"
    )
}

#[cfg(test)]
mod tests;
