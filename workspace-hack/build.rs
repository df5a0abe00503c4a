//! Empty: cargo reads a package's `[build-dependencies]` only when it has a
//! build script, and the hack unifies build dependencies' features too.
fn main() {}
