//! Heap check for the matcher: on a 1 MiB file, no bench case makes
//! `find_matched_slice` hold more than one file's worth of heap at once.
//!
//! This is a count, not a timing, so it is deterministic and runs with
//! `cargo test`. dhat's global allocator records the peak of live heap bytes
//! between a profiler's start and its end; the inputs are built before the
//! profiler starts, so only the matcher's own allocations count. The binary
//! holds a single test because the allocator's counts are process-wide.
//!
//! Measured when this test was written (`cargo test -p toolpass-benches
//! --test alloc -- --nocapture` prints it): 0 bytes for the literal hit and
//! 64 bytes for the other cases (the line tiers' vector of needle lines),
//! against about 10.2 MB, nearly ten copies of the file, for the naive
//! baseline.

use toolpass_benches::{Case, code_like_text, naive_find_matched_slice};
use toolpass_core::matching::{SliceMatch, find_matched_slice};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Peak live heap bytes while `find` runs on `file` and `needle`.
fn peak_bytes(
    find: fn(&str, &str) -> Option<SliceMatch>,
    file: &str,
    needle: &str,
) -> (Option<SliceMatch>, usize) {
    let profiler = dhat::Profiler::builder().testing().build();
    let found = find(file, needle);
    let peak = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    (found, peak)
}

#[test]
fn matcher_peak_heap_is_at_most_one_file_on_1mib() {
    let file = code_like_text(1 << 20);
    for case in Case::ALL {
        let needle = case.needle(&file);
        let (found, peak) = peak_bytes(find_matched_slice, &file, &needle);
        assert_eq!(found.map(|m| m.tier), case.expected_tier(), "{case}");
        assert!(
            peak <= file.len(),
            "{case}: peak {peak} bytes, file {} bytes",
            file.len()
        );
        // The naive baseline folds the whole file, so the same count must see
        // at least one copy of it: the check above is not vacuous.
        let (_, naive_peak) = peak_bytes(naive_find_matched_slice, &file, &needle);
        // Shown with `--nocapture`, for the record.
        eprintln!(
            "{case}: peak {peak} bytes (naive {naive_peak}) for a {}-byte file",
            file.len()
        );
        if case != Case::ExactHitAtEnd {
            assert!(naive_peak > file.len(), "{case}: naive peak {naive_peak}");
        }
    }
}
