//! Criterion benches for the edit matcher: toolpass-core against the naive
//! baseline, for each case of [`Case`] at each size of [`SIZES`].
//!
//! Ids read `matching/<case>/<impl>/<size>`, with throughput in bytes of the
//! file, so criterion reports GiB/s over the haystack. Run with
//! `cargo bench -p toolpass-benches --bench matching`; add a filter such as
//! `-- chain_fails/toolpass` to run one row.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main,
};
use toolpass_benches::{Case, SIZES, code_like_text, naive_find_matched_slice};
use toolpass_core::matching::{SliceMatch, find_matched_slice};

/// Files at or above this size are too slow for the naive baseline to be
/// worth sampling. On the 2-core development machine the naive chain took
/// 0.75 s an iteration at 16 MiB (`chain_fails/naive/16MiB`), under the
/// few seconds that would justify skipping it, so today this is above every
/// size; it exists so that adding a larger size does not silently add
/// minutes.
const NAIVE_SIZE_LIMIT: usize = 64 << 20;

/// Which matcher a benchmark runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Impl {
    Toolpass,
    Naive,
}

fn matching(c: &mut Criterion) {
    let mut group = c.benchmark_group("matching");
    group.warm_up_time(Duration::from_millis(500));
    for size in SIZES {
        let file = code_like_text(size.bytes);
        group.throughput(Throughput::Bytes(file.len() as u64));
        for case in Case::ALL {
            let needle = case.needle(&file);
            for which in [Impl::Toolpass, Impl::Naive] {
                if which == Impl::Naive && size.bytes >= NAIVE_SIZE_LIMIT {
                    continue;
                }
                configure(&mut group, size.bytes, which);
                let (name, find) = match which {
                    Impl::Toolpass => ("toolpass", find_matched_slice as Matcher),
                    Impl::Naive => ("naive", naive_find_matched_slice as Matcher),
                };
                group.bench_function(
                    BenchmarkId::new(format!("{case}/{name}"), size.label),
                    |b| {
                        b.iter(|| find(black_box(&file), black_box(&needle)));
                    },
                );
            }
        }
    }
    group.finish();
}

type Matcher = fn(&str, &str) -> Option<SliceMatch>;

/// Sampling that keeps the whole group to about three minutes: small inputs
/// get many quick samples; large ones ten samples of a fixed iteration count
/// (flat sampling), with time enough for the naive baseline's slow
/// iterations (up to 0.75 s each at 16 MiB) so criterion need not stretch it.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, bytes: usize, which: Impl) {
    if bytes < 1 << 20 {
        group
            .sampling_mode(SamplingMode::Auto)
            .sample_size(50)
            .measurement_time(Duration::from_secs(1));
        return;
    }
    let seconds = match which {
        Impl::Naive if bytes >= 16 << 20 => 9,
        _ => 2,
    };
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(seconds));
}

criterion_group!(benches, matching);
criterion_main!(benches);
