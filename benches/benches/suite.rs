//! The whole built-in scenario suite through the runner against the release
//! reference server, as `toolpass run --jobs 2` plays it (target: ≤ 5 s on
//! the 2-core machine). Run with `cargo bench -p toolpass-benches --bench
//! suite`; the runner's own summary line prints the same figure for one
//! run.

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use toolpass::run::{RunConfig, Verdict};
use toolpass::{Options, Profile, Supervisor, reference_server};
use toolpass_scenario::load_dir;

fn suite(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let scenarios = load_dir(&dir).expect("the built-in scenarios load");
    let server = reference_server(Profile::Release).expect("cargo builds the reference server");
    let supervisor = Supervisor::new(server, Options::default());
    let config = RunConfig {
        jobs: 2,
        ..RunConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut group = c.benchmark_group("suite");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function(format!("{} scenarios, jobs 2", scenarios.len()), |b| {
        b.iter(|| {
            let results =
                runtime.block_on(toolpass::run::run(&supervisor, &scenarios, &config, |_| {}));
            // A suite that stopped passing would time something else.
            assert!(
                results
                    .iter()
                    .all(|r| matches!(r.verdict, Verdict::Pass | Verdict::Skip)
                        || r.level == toolpass_scenario::Level::Pending),
                "the suite does not pass against the reference"
            );
        });
    });
    group.finish();
}

criterion_group!(benches, suite);
criterion_main!(benches);
