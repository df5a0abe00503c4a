//! Reports of a run. Every report is rendered from the same results
//! ([`crate::run::ScenarioResult`]) and [`Summary`], so they never disagree.

mod summary;
pub mod text;

pub use summary::{Score, Summary};
