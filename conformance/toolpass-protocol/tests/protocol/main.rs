//! toolpass-protocol's integration tests, in one binary so that they link
//! once.

mod schemas;
