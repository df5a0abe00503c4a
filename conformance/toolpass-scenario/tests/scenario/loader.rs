//! Loader errors: `path:line:column: message` for every problem of every file.
