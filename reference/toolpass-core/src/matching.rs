//! Placeholder: filled in this issue.
