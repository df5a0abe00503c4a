//! `sed -i` interception: no command or file makes the planner or the
//! emulation panic, and the emulation's fast path (only the lines a
//! whole-file search says may match) writes what running the script on
//! every line writes. The property lives in
//! `toolpass_core::testkit::sed::fuzz_sed`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass_core::testkit::sed::fuzz_sed(data);
});
