//! The scenario loader (YAML to a validated scenario): never a panic or a
//! hang, and every error `path:line:column: message`. The property lives in
//! `toolpass_scenario::fuzzing::fuzz_scenario`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass_scenario::fuzzing::fuzz_scenario(data);
});
