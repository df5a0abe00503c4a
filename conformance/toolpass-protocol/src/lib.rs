//! toolpass/1 wire types: the JSON-RPC envelope, the methods, the Outcome and
//! the canonical error codes, with their committed JSON Schemas.
//!
//! Nothing lives here yet: issue 4 fills it. This crate is the only place
//! where wire types may be defined.
