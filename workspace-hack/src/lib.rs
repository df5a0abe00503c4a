//! No code: this crate exists for its `Cargo.toml`, which turns on one
//! feature set for the workspace's shared dependencies (see there).
