//! The edit matcher against its slow model: `find_matched_slice` must give
//! the model's answer, and a real slice of the haystack, on every input.
//! The property lives in `toolpass_core::testkit::fuzz_matcher`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass_core::testkit::fuzz_matcher(data);
});
