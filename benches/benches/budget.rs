//! The batch budget (`toolpass_core::budget`: Qwen's `finalizeToolResponses`
//! without the writes) over 1 000 results of uneven sizes
//! ([`batch_texts`]) totalling 4, 16 and 64 MiB, at Qwen's default budget
//! (200 000 units), against a naive baseline: toolpass-core's testkit model,
//! Qwen's functions as written (every text re-encoded as UTF-16 wherever its
//! length is asked, the shares refiltered every round). Both give the same
//! batch (checked before timing). The spills are named, not written.
//!
//! Ids read `budget/batch/<impl>/<total>`, with throughput in bytes of the
//! batch; the target is at least 2 GB/s, flat from 4 to 64 MiB (the work is
//! one counting pass over the texts plus the cut pieces). Run with
//! `cargo bench -p toolpass-benches --bench budget`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolpass_benches::batch::{batch_texts, entries, output_parts};
use toolpass_core::budget::{DEFAULT_BATCH_BUDGET, plan_batch};
use toolpass_core::testkit::budget::{fast_finalize, model_finalize};

const RESULTS: usize = 1_000;
const TOTALS: [(&str, usize); 3] = [("4MiB", 4 << 20), ("16MiB", 16 << 20), ("64MiB", 64 << 20)];

/// Names the spill as Qwen would, without writing it.
fn name(call_id: &str, _text: &str) -> Option<String> {
    Some(format!("/spill/{call_id}.txt"))
}

fn budget(c: &mut Criterion) {
    let mut group = c.benchmark_group("budget/batch");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(10);
    for (label, total) in TOTALS {
        let texts = batch_texts(RESULTS, total);
        let ids: Vec<String> = (0..RESULTS).map(|i| format!("call_{i}")).collect();
        let parts = output_parts(&texts);
        let entries = entries(&ids, &parts);
        let bytes: usize = texts.iter().map(String::len).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        if total == TOTALS[0].1 {
            assert_eq!(
                fast_finalize(&entries, DEFAULT_BATCH_BUDGET, name),
                model_finalize(&entries, DEFAULT_BATCH_BUDGET, name),
                "the baseline must cut the batch alike"
            );
        }
        group.bench_with_input(
            BenchmarkId::new("toolpass", label),
            &entries,
            |b, entries| {
                b.iter(|| {
                    let plan = plan_batch(black_box(entries), DEFAULT_BATCH_BUDGET)
                        .cut()
                        .expect("the batch is over budget");
                    let written: Vec<Option<String>> = plan
                        .spills()
                        .iter()
                        .map(|s| name(&s.call_id, &s.text))
                        .collect();
                    plan.finish(&written).report
                });
            },
        );
        group.bench_with_input(BenchmarkId::new("naive", label), &entries, |b, entries| {
            b.iter(|| model_finalize(black_box(entries), DEFAULT_BATCH_BUDGET, name).map(|r| r.3));
        });
    }
    group.finish();
}

criterion_group!(benches, budget);
criterion_main!(benches);
