//! The integration tests of toolpass-scenario, one binary.

mod any_of;
mod async_steps;
mod citations;
mod design_example;
mod guide;
mod loader;
mod matchers;
mod memory;
mod placeholders;
mod schema;
