//! Deterministic inputs and naive baselines for the criterion benches.
//!
//! The benches compare toolpass-core against the straightforward way to get
//! the same answers, on generated files, so a speed-up is measured against an
//! honest alternative rather than a straw man.
//!
//! - [`batch`]: batches of results of uneven sizes for the batch-budget
//!   bench.
//! - [`gate`]: the instruction-count gate's baselines, the reading of
//!   gungraun's summaries and the comparison that fails CI on a 2% rise
//!   (the `instructions` bench and the `instruction-gate` binary use it).
//! - [`grep_corpus`]: a generated source tree for the grep core's bench,
//!   and the naive search (walk, read whole, `Regex` per line) it is
//!   compared with.
//! - [`input`]: code-like files at fixed sizes, and the needle of each bench
//!   case.
//! - [`naive`]: the matcher chain written the obvious way (whole-file fold
//!   with an offset map, lines collected into a vector, a `String` per folded
//!   line comparison). Tests hold it to the same answers as
//!   [`toolpass_core::matching::find_matched_slice`].
//! - [`naive_truncate`]: truncation the way Qwen's JavaScript does it, with
//!   the whole output split into a vector of lines.
//! - [`tool_catalogue`]: registries of generated deferred tools for the
//!   `tool_search` bench (its naive baseline is toolpass-core's testkit
//!   model, Qwen's `scoreTool` and sort as written).

pub mod batch;
pub mod gate;
pub mod grep_corpus;
pub mod input;
pub mod naive;
pub mod naive_truncate;
pub mod tool_catalogue;

pub use input::{Case, SIZES, Size, code_like_text};
pub use naive::naive_find_matched_slice;
pub use naive_truncate::naive_truncate;
