//! JSON-RPC framing and decoding, as the server reads requests and the
//! runner reads an implementation's answers: never a panic or a hang, the
//! same result however the bytes arrive, agreement with a split-at-newline
//! model under a line limit, and round trips of what decodes. The property
//! lives in `toolpass_protocol::fuzzing::fuzz_framing`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass_protocol::fuzzing::fuzz_framing(data);
});
