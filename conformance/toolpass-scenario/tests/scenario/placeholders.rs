//! Placeholder substitution and its escape.
