//! Node's names and texts for the OS errors Qwen's messages quote
//! (`EACCES: permission denied, stat '/a'`), in one table keyed by
//! `rustix`'s `Errno`, so no error number is written by hand and every
//! message that quotes one agrees with the others.
//!
//! Supported platforms: Linux (the reference confines paths with
//! `openat2`); other Unixes build, with cap-std's component walk in its
//! place.

use std::io;

use rustix::io::Errno;

/// Node's code (`EACCES`) and its libuv text (`permission denied`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeErrno {
    /// The code, as `error.code` in Node.
    pub code: &'static str,
    /// The text libuv gives it.
    pub text: &'static str,
}

/// The errors a file tool meets, as Node names them.
const TABLE: &[(Errno, NodeErrno)] = &[
    (Errno::PERM, node("EPERM", "operation not permitted")),
    (Errno::NOENT, node("ENOENT", "no such file or directory")),
    (Errno::IO, node("EIO", "i/o error")),
    (Errno::ACCESS, node("EACCES", "permission denied")),
    (Errno::BUSY, node("EBUSY", "resource busy or locked")),
    (Errno::NOTDIR, node("ENOTDIR", "not a directory")),
    (
        Errno::ISDIR,
        node("EISDIR", "illegal operation on a directory"),
    ),
    (Errno::MFILE, node("EMFILE", "too many open files")),
    (Errno::NOSPC, node("ENOSPC", "no space left on device")),
    (Errno::ROFS, node("EROFS", "read-only file system")),
    (Errno::NAMETOOLONG, node("ENAMETOOLONG", "name too long")),
    (
        Errno::LOOP,
        node("ELOOP", "too many symbolic links encountered"),
    ),
    (Errno::TXTBSY, node("ETXTBSY", "text file is busy")),
    (Errno::FBIG, node("EFBIG", "file too large")),
];

const fn node(code: &'static str, text: &'static str) -> NodeErrno {
    NodeErrno { code, text }
}

/// Node's name and text for `error`, when it is an OS error Node names.
#[must_use]
pub fn node_errno(error: &io::Error) -> Option<NodeErrno> {
    let errno = Errno::from_io_error(error)?;
    TABLE
        .iter()
        .find(|(candidate, _)| *candidate == errno)
        .map(|(_, node)| *node)
}

/// Whether `error` is the OS error `errno` (cap-std's own errors, such as
/// an escape, carry none).
#[must_use]
pub fn is(error: &io::Error, errno: Errno) -> bool {
    Errno::from_io_error(error) == Some(errno)
}

/// The Node-style code of an IO error (`ENOENT`, `EACCES`, ...), which is
/// what Qwen's messages quote.
#[must_use]
pub fn errno_name(error: &io::Error) -> &'static str {
    node_errno(error).map_or("unknown error", |n| n.code)
}

/// The message of a Node `fs` error, e.g. `EACCES: permission denied, stat
/// '/a/b'`, which is what Qwen's catch-all messages quote.
#[must_use]
pub fn fs_error_message(error: &io::Error, syscall: &str, path: &str) -> String {
    match node_errno(error) {
        Some(NodeErrno { code, text }) => format!("{code}: {text}, {syscall} '{path}'"),
        None => format!("{error}, {syscall} '{path}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_read_like_nodes() {
        let e = io::Error::from(Errno::ACCESS);
        assert_eq!(
            fs_error_message(&e, "stat", "/a"),
            "EACCES: permission denied, stat '/a'"
        );
        assert_eq!(errno_name(&io::Error::from(Errno::LOOP)), "ELOOP");
        assert!(is(&io::Error::from(Errno::ISDIR), Errno::ISDIR));
    }

    #[test]
    fn errors_without_an_errno_keep_their_own_text() {
        let e = io::Error::other("a path led outside of the filesystem");
        assert_eq!(errno_name(&e), "unknown error");
        assert_eq!(
            fs_error_message(&e, "open", "/a"),
            "a path led outside of the filesystem, open '/a'"
        );
        assert!(!is(&e, Errno::ACCESS));
    }
}
