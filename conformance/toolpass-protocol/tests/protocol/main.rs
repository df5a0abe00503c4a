//! toolpass-protocol's integration tests, in one binary so that they link
//! once.

mod config;
mod exchange;
mod framing;
mod implementing;
mod mcp;
mod negotiation;
mod outcome;
mod roundtrip;
mod schemas;
mod snapshots;
mod vocabulary;
