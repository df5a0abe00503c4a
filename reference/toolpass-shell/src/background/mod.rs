//! Background shells (in progress).
