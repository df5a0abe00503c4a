//! Criterion bench of the grep tool's in-process search core
//! (`Search::run`: the parallel walk, binary detection, the line searcher)
//! on a generated tree of 2 000 files, against the naive search of
//! [`toolpass_benches::grep_corpus`]. The `grep` bench beside it times the
//! same core against the real `rg`, `grep` and `git grep` on a corpus of
//! the machine's; this one needs nothing installed and measures the same
//! input everywhere.
//!
//! Ids read `grep_core/<pattern>/<impl>`, with throughput in bytes of the
//! tree. Run with `cargo bench -p toolpass-benches --bench grep_core`.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolpass_benches::grep_corpus::{
    DIRS, FREQUENT_PATTERN, RARE_PATTERN, naive_grep, write_corpus,
};
use toolpass_tools::sandbox::Sandbox;
use toolpass_tools::tools::grep_search::search::{Search, Strategy};

/// The core's answer, as the naive search counts it: matched lines.
fn core_hits(search: &Search, sandbox: &Sandbox) -> usize {
    search
        .run(sandbox, sandbox.root())
        .expect("the corpus opens")
        .iter()
        .map(|file| file.hits.len())
        .sum()
}

fn grep_core(c: &mut Criterion) {
    let tree = tempfile::tempdir().expect("a temp dir for the corpus");
    let root = tree.path();
    let bytes = write_corpus(root, DIRS);
    let sandbox = Sandbox::new(root).expect("a sandbox over the corpus");
    let mut group = c.benchmark_group("grep_core");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(4));
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes));
    for (name, pattern) in [("rare", RARE_PATTERN), ("frequent", FREQUENT_PATTERN)] {
        // `grep -r`'s strategy whatever the temp dir's ancestors hold: a
        // `.git` above it would switch to git's (case-insensitive) rules.
        let search =
            Search::new(pattern, None, Strategy::SystemGrep).expect("the bench pattern compiles");
        check_same_answer(&search, &sandbox, root, pattern);
        group.bench_function(BenchmarkId::new(name, "toolpass"), |b| {
            b.iter(|| black_box(core_hits(&search, &sandbox)));
        });
        group.bench_function(BenchmarkId::new(name, "naive"), |b| {
            b.iter(|| black_box(naive_grep(black_box(root), pattern).len()));
        });
    }
    group.finish();
}

/// A bench of two searches that disagree would time different work.
fn check_same_answer(search: &Search, sandbox: &Sandbox, root: &Path, pattern: &str) {
    let core = core_hits(search, sandbox);
    let naive = naive_grep(root, pattern).len();
    assert_eq!(core, naive, "core and naive disagree on {pattern}");
    assert!(core > 0, "{pattern} matches nothing in the corpus");
}

criterion_group!(benches, grep_core);
criterion_main!(benches);
