//! The scenario model: YAML transcripts of tool calls, their loader with
//! positioned errors, the matchers and the scenario JSON Schema.
//!
//! Nothing lives here yet: issue 5 fills it.
