//! Each matcher condition, its mismatch, snapshots and JSON subsets.
