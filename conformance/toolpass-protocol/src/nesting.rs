//! A line's JSON nesting depth and its top-level `"id"`, read without
//! recursion: serde_json refuses a value nested deeper than 128 levels
//! (its stack guard), and the request such a line carries still deserves
//! an answer to its own id rather than JSON-RPC's `null` for a line
//! nobody could read.

use crate::RequestId;

/// serde_json's recursion limit: a line nested deeper is refused.
pub(crate) const MAX_DEPTH: usize = 128;

/// What a scan of a JSON text found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Nesting {
    /// The deepest array or object nesting.
    pub(crate) depth: usize,
    /// The top-level object's `"id"` member, when it is an integer or a
    /// string.
    pub(crate) id: Option<RequestId>,
}

/// Scans `line` once. Text that is not JSON gives whatever was seen
/// before it went wrong.
pub(crate) fn scan(line: &str) -> Nesting {
    let bytes = line.as_bytes();
    let mut found = Nesting::default();
    let mut depth = 0usize;
    // At depth 1 of an object: the next string is a member's name.
    let mut expecting_key = false;
    // The last name at depth 1 was `id`, and its value comes next.
    let mut id_key = false;
    let mut id_value = false;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        match b {
            b'"' => {
                let end = string_end(bytes, at + 1).unwrap_or(bytes.len());
                let token = &line[at..end.min(bytes.len())];
                if depth == 1 && expecting_key {
                    id_key = serde_json::from_str::<String>(token).is_ok_and(|k| k == "id");
                    expecting_key = false;
                } else if depth == 1 && id_value {
                    found.id = serde_json::from_str::<String>(token)
                        .ok()
                        .map(RequestId::from);
                    id_value = false;
                }
                at = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                found.depth = found.depth.max(depth);
                expecting_key = depth == 1 && b == b'{';
                if depth == 2 {
                    id_value = false;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expecting_key = true,
            b':' if depth == 1 => id_value = std::mem::take(&mut id_key),
            b'-' | b'0'..=b'9' if depth == 1 && id_value => {
                let end = bytes[at..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| at + n);
                found.id = line[at..end].parse::<i64>().ok().map(RequestId::from);
                id_value = false;
                at = end;
                continue;
            }
            _ if b.is_ascii_whitespace() => {}
            _ if depth == 1 => id_value = false,
            _ => {}
        }
        at += 1;
    }
    found
}

/// The offset just past the closing quote of a string whose text starts at
/// `from`.
fn string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(levels: usize, id: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"x":{}{}}}}}"#,
            "[".repeat(levels),
            "]".repeat(levels)
        )
    }

    #[test]
    fn the_depth_and_the_top_level_id_are_read_without_recursion() {
        let found = scan(&deep(100_000, "7"));
        assert_eq!(found.depth, 100_002);
        assert_eq!(found.id, Some(RequestId::from(7)));
        assert_eq!(
            scan(&deep(3, r#""a\"b""#)).id,
            Some(RequestId::from("a\"b"))
        );
        assert_eq!(scan(&deep(3, "null")).id, None);
        assert_eq!(scan(&deep(3, "1.5")).id, None, "not an integer id");
    }

    #[test]
    fn only_the_top_level_id_counts() {
        let nested = r#"{"params":{"id":5},"method":"m","id":"top"}"#;
        assert_eq!(scan(nested).id, Some(RequestId::from("top")));
        assert_eq!(scan(r#"{"params":{"id":5}}"#).id, None);
        assert_eq!(
            scan(r#"{"x":"id","y":1}"#).id,
            None,
            "a value named id is no key"
        );
        assert_eq!(scan(r#"["id",1]"#).id, None);
        assert_eq!(scan(r#"{"id":[1]}"#).id, None);
    }
}
