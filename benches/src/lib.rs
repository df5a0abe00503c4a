//! Deterministic inputs and naive baselines for the criterion benches.
