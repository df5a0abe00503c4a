//! Placeholder: filled in this issue.
fn main() {}
