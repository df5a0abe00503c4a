//! Criterion benches for the process runner (`toolpass-shell`): one command
//! run to its end through `run`, on a pty and on pipes, against
//! `std::process::Command::output()` of the same `bash -c` as the naive
//! baseline (no process group, no family sweep, no terminal, everything
//! held in memory).
//!
//! Cases: `true` (the cost of starting and ending a command) and 1 MB of
//! output (`yes | head -c 1000000`: collecting, and on a pty rendering).
//! Ids read `shell/<case>/<impl>`. Run with
//! `cargo bench -p toolpass-benches --bench shell`.

use std::process::Command;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolpass_shell::{Cancel, Options, Prefer, Request, run};

const CASES: [(&str, &str, u64); 2] = [
    ("true", "true", 0),
    ("1MB", "yes | head -c 1000000", 1_000_000),
];

fn shell(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut group = c.benchmark_group("shell");
    group.sample_size(20);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(5));
    for (case, command, bytes) in CASES {
        if bytes > 0 {
            group.throughput(Throughput::Bytes(bytes));
        }
        let request = Request {
            command: command.to_owned(),
            directory: dir.path().to_owned(),
            context: Vec::new(),
        };
        for (name, prefer) in [("runner-pty", Prefer::Pty), ("runner-pipes", Prefer::Pipes)] {
            let options = Options {
                prefer,
                ..Options::default()
            };
            group.bench_function(BenchmarkId::new(case, name), |b| {
                b.iter(|| {
                    let outcome = run(&request, &options, &Cancel::new(), &mut |_| {})
                        .expect("the command runs");
                    assert_eq!(outcome.exit_code, Some(0), "{}", outcome.output);
                    outcome
                });
            });
        }
        group.bench_function(BenchmarkId::new(case, "command-output"), |b| {
            b.iter(|| {
                Command::new("bash")
                    .args(["-c", command])
                    .current_dir(dir.path())
                    .output()
                    .expect("bash runs")
            });
        });
    }
    group.finish();
}

criterion_group!(benches, shell);
criterion_main!(benches);
