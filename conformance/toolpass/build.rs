//! The runner embeds `scenarios/` (`include_dir!` in `src/builtin.rs`). The
//! macro makes cargo watch the files it read, not the directory: a scenario
//! added or removed would leave a stale suite in the binary. Watching the
//! directory makes cargo rebuild the crate on any change beneath it.

fn main() {
    println!("cargo::rerun-if-changed=../../scenarios");
}
