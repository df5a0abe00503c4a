//! The batch budget and the persisted stub against their slow models: the
//! plan and its cut must give the model's batch, never over the budget, and
//! `fitText`, the preview and the persist gate the model's answers, on every
//! input. The property lives in `toolpass_core::testkit::budget::fuzz_batch`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolpass_core::testkit::budget::fuzz_batch(data);
});
