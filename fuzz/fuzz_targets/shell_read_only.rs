//! The read-only judgement of shell commands: no text makes it panic, and
//! a write appended to a read-only line is never read-only. The property
//! lives in `toolpass_core::testkit::shell_read_only::fuzz_shell_read_only`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass_core::testkit::shell_read_only::fuzz_shell_read_only(data);
});
