//! `tool_search`'s keyword mode over 1 000 and 10 000 deferred tools
//! ([`deferred_tools`]), against a naive baseline: toolpass-core's testkit
//! model, which is Qwen's `scoreTool` and ranking as written (every tool's
//! name, description and hint lowercased on every query, every match
//! sorted). Both give the same names (checked before timing).
//!
//! Ids read `tool_search/<query>/<impl>/<tools>`: `toolpass` searches an
//! index built beforehand (the registry builds it when its tools change),
//! `toolpass-indexing` builds the index and searches (one query's whole
//! cost when nothing is cached: the trigram index makes it dearer than the
//! naive search, a cost paid once per registry change), `naive` runs the
//! model. The target is a
//! keyword query over 10 000 tools in at most 1 ms. Run with
//! `cargo bench -p toolpass-benches --bench tool_search`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolpass_benches::tool_catalogue::deferred_tools;
use toolpass_core::testkit::tool_search::model_search;
use toolpass_core::tool_search::{Keywords, Query, SearchIndex, parse_query};

/// Queries of each shape: common words (hundreds of matches, many ties),
/// a required term, action synonyms, and nothing matching.
const QUERIES: &[(&str, &str)] = &[
    ("common-words", "send slack message"),
    ("required", "+github close issue"),
    ("synonyms", "stop the pipeline"),
    ("no-match", "zebra quantum"),
];

const SIZES: &[usize] = &[1_000, 10_000];
const MAX_RESULTS: usize = 5;

fn keywords(query: &str) -> Keywords {
    match parse_query(query, MAX_RESULTS) {
        Ok(Query::Keywords(keywords)) => keywords,
        other => panic!("{query:?} is not a keyword query: {other:?}"),
    }
}

fn tool_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("tool_search");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for &size in SIZES {
        let tools = deferred_tools(size);
        let index = SearchIndex::new(&tools);
        group.throughput(Throughput::Elements(size as u64));
        for (label, query) in QUERIES {
            let k = keywords(query);
            let none = |_: &str| false;
            assert_eq!(
                index.search(&k, MAX_RESULTS, none),
                model_search(&tools, &k.terms, &k.required, MAX_RESULTS, none),
                "{label}: the baseline must find the same tools"
            );
            group.bench_function(BenchmarkId::new(format!("{label}/toolpass"), size), |b| {
                b.iter(|| index.search(black_box(&k), MAX_RESULTS, none).len());
            });
            group.bench_function(
                BenchmarkId::new(format!("{label}/toolpass-indexing"), size),
                |b| {
                    b.iter(|| {
                        SearchIndex::new(black_box(&tools))
                            .search(&k, MAX_RESULTS, none)
                            .len()
                    });
                },
            );
            group.bench_function(BenchmarkId::new(format!("{label}/naive"), size), |b| {
                b.iter(|| {
                    model_search(black_box(&tools), &k.terms, &k.required, MAX_RESULTS, none).len()
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, tool_search);
criterion_main!(benches);
