//! The `sed -i` emulation on a 1 MiB file, against running `sed -i` on the
//! same file and against a naive baseline: `regex::Regex::replace_all` over
//! the whole text with `(?m)`, which gives the same bytes for these scripts
//! (checked before timing) but has none of the per-line machinery (lines,
//! leftmost-longest matches, occurrences, the empty-match rule), so the
//! difference is what fidelity costs.
//!
//! Ids read `sed/<case>/<impl>/1MiB`, with throughput in bytes of the file;
//! `toolpass` runs a compiled script on the text (as `naive` runs a
//! compiled regex on a `&str`),
//! `toolpass-compiling` is one call's whole cost from the file's bytes
//! (UTF-8 validation and compiling four engines included), `sed-process` spawns GNU sed
//! (`LC_ALL=C.UTF-8`) on a file in a temporary directory, rewritten before
//! each run and not timed. Run with `cargo bench -p toolpass-benches --bench
//! sed`.

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolpass_benches::code_like_text;
use toolpass_core::sed::{Options, Program, Syntax, emulate, parse_script};

/// A script, and the same substitution in `regex`'s syntax for the naive
/// baseline.
struct Case {
    name: &'static str,
    script: &'static str,
    naive_pattern: &'static str,
    naive_replacement: &'static str,
}

const CASES: &[Case] = &[
    // A literal rename on one line in twelve.
    Case {
        name: "literal",
        script: "s/compute/evaluate/g",
        naive_pattern: "compute",
        naive_replacement: "evaluate",
    },
    // Groups swapped, on most lines.
    Case {
        name: "groups",
        script: "s/\\(value\\|count\\)_\\([0-9]*\\)/\\2_\\1/g",
        naive_pattern: "(value|count)_([0-9]*)",
        naive_replacement: "${2}_${1}",
    },
    // Nothing matches: the whole-file candidate search alone.
    Case {
        name: "no-match",
        script: "s/value_9999999/x/g",
        naive_pattern: "value_9999999",
        naive_replacement: "x",
    },
    // Trailing blanks: an (often empty) match on every line, so every line
    // goes through the per-line machinery.
    Case {
        name: "every-line",
        script: "s/[ \\t]*$//",
        naive_pattern: "(?m)[ \\t]*$",
        naive_replacement: "",
    },
];

const SIZE_LABEL: &str = "1MiB";

fn sed(c: &mut Criterion) {
    let text = code_like_text(1 << 20);
    let dir = tempfile::tempdir().expect("a temporary directory for sed -i");
    let file = dir.path().join("bench.txt");
    let mut group = c.benchmark_group("sed");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(20);
    group.throughput(Throughput::Bytes(text.len() as u64));
    for case in CASES {
        let substitution =
            parse_script(case.script, Syntax::Basic).expect("the bench scripts parse");
        let naive = regex::Regex::new(case.naive_pattern).expect("the naive patterns compile");
        let emulated =
            emulate(&substitution, text.as_bytes(), Options::default()).expect("emulated");
        let baseline = naive.replace_all(&text, case.naive_replacement);
        assert_eq!(
            emulated, baseline,
            "{}: the naive baseline must write the same bytes",
            case.name
        );
        assert_eq!(
            emulated.as_bytes(),
            run_sed(&file, &text, case.script),
            "{}: GNU sed disagrees",
            case.name
        );
        let program = Program::new(&substitution, Options::default()).expect("compiled");
        group.bench_function(
            BenchmarkId::new(format!("{}/toolpass", case.name), SIZE_LABEL),
            |b| {
                b.iter(|| program.apply_text(black_box(&text)));
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("{}/toolpass-compiling", case.name), SIZE_LABEL),
            |b| {
                b.iter(|| {
                    emulate(
                        black_box(&substitution),
                        black_box(text.as_bytes()),
                        Options::default(),
                    )
                });
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("{}/naive", case.name), SIZE_LABEL),
            |b| {
                b.iter(|| {
                    naive
                        .replace_all(black_box(&text), case.naive_replacement)
                        .len()
                });
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("{}/sed-process", case.name), SIZE_LABEL),
            |b| {
                b.iter_batched(
                    || std::fs::write(&file, &text).expect("the bench file is written"),
                    |()| sed_in_place(&file, case.script),
                    BatchSize::PerIteration,
                );
            },
        );
    }
    group.finish();
}

/// Runs `sed -i SCRIPT FILE` and waits for it.
fn sed_in_place(file: &Path, script: &str) {
    let status = Command::new("sed")
        .env("LC_ALL", "C.UTF-8")
        .args(["-i", "-e", script])
        .arg(file)
        .status()
        .expect("GNU sed runs");
    assert!(status.success(), "sed -i {script:?} failed");
}

/// What `sed -i` leaves in `file` after starting from `text`.
fn run_sed(file: &Path, text: &str, script: &str) -> Vec<u8> {
    std::fs::write(file, text).expect("the bench file is written");
    sed_in_place(file, script);
    std::fs::read(file).expect("the bench file is read back")
}

criterion_group!(benches, sed);
criterion_main!(benches);
