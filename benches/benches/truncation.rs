//! Criterion benches for tool-output truncation: `toolpass_core::truncate`
//! against the naive split-and-join baseline, on code-like output at each
//! size of [`SIZES`], with Qwen's default limits (25 000 characters, 1 000
//! lines) and each `keep` mode.
//!
//! Ids read `truncation/<case>/<impl>/<size>`, with throughput in bytes of
//! the output. Run with `cargo bench -p toolpass-benches --bench truncation`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolpass_benches::{SIZES, code_like_text, naive_truncate};
use toolpass_core::truncate::{Keep, Limits, truncate};

fn truncation(c: &mut Criterion) {
    let mut group = c.benchmark_group("truncation");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for size in SIZES {
        let output = code_like_text(size.bytes);
        group.throughput(Throughput::Bytes(output.len() as u64));
        for (case, keep) in [
            ("both", Keep::Both),
            ("head", Keep::Head),
            ("tail", Keep::Tail),
        ] {
            let limits = Limits {
                keep,
                ..Limits::default()
            };
            group.bench_with_input(
                BenchmarkId::new(format!("{case}/toolpass"), size.label),
                &output,
                |b, out| {
                    b.iter(|| black_box(truncate(black_box(out), &limits)).map(|t| t.preview()));
                },
            );
        }
        group.bench_with_input(
            BenchmarkId::new("both/naive", size.label),
            &output,
            |b, out| {
                b.iter(|| naive_truncate(black_box(out), 25_000, 1_000));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, truncation);
criterion_main!(benches);
