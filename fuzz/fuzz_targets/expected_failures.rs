//! The expected-failures file: never a panic or a hang, and every error or
//! entry problem `path:line:column: message`. The property lives in
//! `toolpass::expected::fuzz_parse`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass::expected::fuzz_parse(data);
});
