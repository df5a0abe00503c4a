//! What Qwen Code's messages get from Node.js and JavaScript, reproduced so
//! the texts match: `path.extname`, `path.relative`, Qwen's `makeRelative` and
//! `shortenPath`, `String.prototype.trim`, UTF-16 lengths (a JavaScript
//! string's `length`), and the text of Node's `fs` errors.
//!
//! Shared by the file tools (`read_file`, `write_file`, `list_directory`) and
//! `grep_search`. JavaScript's definition of white space (and `trimEnd`,
//! which the matcher needs too) is `toolpass_core::fold`'s.

use toolpass_core::fold::is_js_whitespace;

/// `path.extname` of a path's last component: from the last `.` on, or
/// empty when the name has no dot or only leading dots before it.
#[must_use]
pub(crate) fn extname(path: &str) -> &str {
    // Node's scan from the end: the last dot starts the extension unless
    // nothing but dots stands before it (".bashrc", "..").
    let base = basename(path);
    let bytes = base.as_bytes();
    let mut start_dot: Option<usize> = None;
    let mut pre_dot_state = 0i8;
    for (i, &b) in bytes.iter().enumerate().rev() {
        if b == b'.' {
            if start_dot.is_none() {
                start_dot = Some(i);
            } else if pre_dot_state != 1 {
                pre_dot_state = 1;
            }
        } else if start_dot.is_some() {
            pre_dot_state = -1;
        }
    }
    match start_dot {
        None => "",
        Some(_) if pre_dot_state == 0 => "",
        Some(dot) if pre_dot_state == 1 && dot + 1 == bytes.len() && dot == 1 => "",
        Some(dot) => &base[dot..],
    }
}

/// `path.basename`: the last component, ignoring trailing slashes.
#[must_use]
pub(crate) fn basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    }
}

/// `path.resolve` of an absolute path: `.` and `..` resolved lexically,
/// repeated and trailing slashes dropped.
#[must_use]
pub(crate) fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `path.relative(from, to)` for two absolute paths.
#[must_use]
pub(crate) fn relative(from: &str, to: &str) -> String {
    let from = normalize(from);
    let to = normalize(to);
    let from_parts: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').filter(|p| !p.is_empty()).collect();
    let common = from_parts
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: Vec<&str> = vec![".."; from_parts.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// Qwen's `makeRelative`: the path relative to `root`, `.` for the root
/// itself, or the resolved absolute path when it is outside.
#[must_use]
pub(crate) fn make_relative(target: &str, root: &str) -> String {
    let rel = relative(root, target);
    if rel == ".." || rel.starts_with("../") {
        normalize(target)
    } else if rel.is_empty() {
        ".".to_owned()
    } else {
        rel
    }
}

/// Qwen's `shortenPath` with its default 80-character budget: long paths
/// keep their first segment and as many trailing segments as fit around a
/// `...`.
#[must_use]
pub(crate) fn shorten_path(path: &str) -> String {
    const MAX: usize = 80;
    const ELLIPSIS: &str = "...";
    let middle_cut = |s: &str| {
        let keep = (MAX - 3) / 2;
        format!(
            "{}{ELLIPSIS}{}",
            utf16_prefix(s, keep),
            utf16_suffix(s, keep)
        )
    };
    if utf16_len(path) <= MAX {
        return path.to_owned();
    }
    let root = if path.starts_with('/') { "/" } else { "" };
    let segments: Vec<&str> = path[root.len()..]
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    match segments.as_slice() {
        [] => root.to_owned(),
        [only] => {
            let full = format!("{root}{only}");
            if utf16_len(&full) <= MAX {
                full
            } else {
                middle_cut(&full)
            }
        }
        [first, rest @ ..] => {
            let start = format!("{root}{first}");
            let mut kept: Vec<&str> = Vec::new();
            for (i, segment) in rest.iter().enumerate().rev() {
                let mut end = vec![*segment];
                end.extend(&kept);
                let end = end.join("/");
                let candidate = if i > 0 {
                    format!("{start}/{ELLIPSIS}/{end}")
                } else {
                    format!("{start}/{end}")
                };
                if utf16_len(&candidate) > MAX {
                    break;
                }
                kept.insert(0, segment);
                if i == 0 {
                    return candidate;
                }
            }
            if kept.is_empty() {
                middle_cut(path)
            } else {
                format!("{start}/{ELLIPSIS}/{}", kept.join("/"))
            }
        }
    }
}

/// JavaScript's `String.prototype.trim`: white space and line terminators,
/// which include U+FEFF and exclude U+0085 (unlike `str::trim`).
#[must_use]
pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// A JavaScript string's `length`: UTF-16 code units.
#[must_use]
pub(crate) fn utf16_len(s: &str) -> usize {
    // grep_search measures every output line: ASCII needs no decoding.
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// JavaScript's `s.substring(0, units)`, except that a surrogate pair the
/// cut would split is left out whole (a Rust string cannot hold half of it).
#[must_use]
pub(crate) fn utf16_prefix(s: &str, units: usize) -> &str {
    let mut seen = 0;
    for (i, c) in s.char_indices() {
        seen += c.len_utf16();
        if seen > units {
            return &s[..i];
        }
    }
    s
}

/// The last `units` UTF-16 code units of `s`, a split pair left out whole.
#[must_use]
pub(crate) fn utf16_suffix(s: &str, units: usize) -> &str {
    let mut seen = 0;
    for (i, c) in s.char_indices().rev() {
        seen += c.len_utf16();
        if seen > units {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

pub(crate) use crate::errno::fs_error_message;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extname_is_nodes() {
        // Checked against node 20's path.extname.
        for (path, ext) in [
            ("/a/b.ts", ".ts"),
            ("/a/.bashrc", ""),
            ("/a/..x", ".x"),
            ("/a/x.", "."),
            ("/a/...", "."),
            ("/a/..", ""),
            ("/a/a..b", ".b"),
            ("/a/.a.b", ".b"),
            ("/a/Makefile", ""),
            ("/a.d/file", ""),
        ] {
            assert_eq!(extname(path), ext, "{path}");
        }
    }

    #[test]
    fn relative_paths_are_nodes() {
        assert_eq!(relative("/r", "/r/a/b"), "a/b");
        assert_eq!(relative("/r", "/r"), "");
        assert_eq!(relative("/r/a", "/r/b/c"), "../b/c");
        assert_eq!(make_relative("/r/./a//b/", "/r"), "a/b");
        assert_eq!(make_relative("/r", "/r"), ".");
        assert_eq!(make_relative("/x/y", "/r"), "/x/y");
        assert_eq!(normalize("/a/../../b/./c/"), "/b/c");
    }

    #[test]
    fn shorten_path_keeps_the_first_and_last_segments() {
        let short = "src/a.rs";
        assert_eq!(shorten_path(short), short);
        let long = format!("/root/{}/leaf.txt", ["segment"; 12].join("/"));
        let shortened = shorten_path(&long);
        assert_eq!(
            shortened,
            "/root/.../segment/segment/segment/segment/segment/segment/segment/leaf.txt"
        );
        assert!(utf16_len(&shortened) <= 80);
        let one = "x".repeat(100);
        assert_eq!(utf16_len(&shorten_path(&one)), 38 + 3 + 38);
    }

    #[test]
    fn js_trim_is_not_rusts_trim() {
        assert_eq!(js_trim("\u{feff} a \u{85}"), "a \u{85}");
        assert_eq!(js_trim("\u{a0}\u{3000}x\t\r"), "x");
    }

    #[test]
    fn utf16_cuts_never_split_a_pair() {
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(utf16_prefix("a😀b", 2), "a");
        assert_eq!(utf16_prefix("a😀b", 3), "a😀");
        assert_eq!(utf16_prefix("abc", 10), "abc");
        assert_eq!(utf16_suffix("a😀b", 2), "b");
        assert_eq!(utf16_suffix("a😀b", 3), "😀b");
    }
}
