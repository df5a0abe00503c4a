//! The instruction-count gate: reads the `summary.json` files that a run of
//! the `instructions` bench left (`--save-summary`), compares each count
//! with the committed baseline table, prints the table, and exits 1 when a
//! count rose more than the limit, a bench has no baseline, or a baseline's
//! bench did not run. `--bless` writes this run's counts as the baselines
//! instead. `scripts/bench-gate` runs the benches and then this.

#![allow(clippy::print_stdout, reason = "the gate's table is its output")]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Parser;
use toolpass_benches::gate::{
    Counts, DEFAULT_LIMIT_PERCENT, compare, parse_baselines, read_summary, render_baselines,
    render_table,
};

/// Compare the `instructions` bench's counts with their baselines.
#[derive(Parser)]
#[command(name = "instruction-gate")]
struct Args {
    /// The baseline table.
    #[arg(long, default_value_os_t = default_baseline())]
    baseline: PathBuf,
    /// Where gungraun wrote the run's summaries (searched recursively for
    /// `summary.json`).
    #[arg(long, default_value_os_t = default_summaries())]
    summaries: PathBuf,
    /// The largest rise in percent that still passes.
    #[arg(long, default_value_t = DEFAULT_LIMIT_PERCENT)]
    limit: f64,
    /// Write this run's counts to the baseline table instead of comparing.
    #[arg(long)]
    bless: bool,
}

fn default_baseline() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/instructions.tsv")
}

/// gungraun's output directory for this bench: `<target>/gungraun/<package>/<bench>`.
fn default_summaries() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    );
    target.join("gungraun/toolpass-benches/instructions")
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(code) => code,
        Err(e) => {
            println!("instruction-gate: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<ExitCode> {
    let now = read_counts(&args.summaries)?;
    if args.bless {
        std::fs::write(&args.baseline, render_baselines(&now))
            .with_context(|| format!("writing {}", args.baseline.display()))?;
        println!(
            "wrote {} baselines to {}",
            now.len(),
            args.baseline.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let text = std::fs::read_to_string(&args.baseline)
        .with_context(|| format!("reading {}", args.baseline.display()))?;
    let baselines =
        parse_baselines(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.baseline.display()))?;
    let rows = compare(&baselines, &now, args.limit);
    print!("{}", render_table(&rows, args.limit));
    let failed = rows.iter().filter(|r| r.verdict.fails()).count();
    if failed == 0 {
        println!(
            "instruction gate: {} benches within +{}%",
            rows.len(),
            args.limit
        );
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "instruction gate: {failed} of {} benches failed (a deliberate change: `just bench-bless`)",
            rows.len()
        );
        Ok(ExitCode::FAILURE)
    }
}

/// Every `summary.json` below `dir`, read into counts by bench name.
fn read_counts(dir: &Path) -> Result<Counts> {
    let mut files = Vec::new();
    collect_summaries(dir, &mut files)
        .with_context(|| format!("listing {} (did the bench run?)", dir.display()))?;
    if files.is_empty() {
        bail!(
            "no summary.json below {} (run the bench with --save-summary)",
            dir.display()
        );
    }
    let mut counts = Counts::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let (name, count) =
            read_summary(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        if counts.insert(name.clone(), count).is_some() {
            bail!("{name} has two summaries below {}", dir.display());
        }
    }
    Ok(counts)
}

fn collect_summaries(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            collect_summaries(&path, out)?;
        } else if entry.file_name() == "summary.json" {
            out.push(path);
        }
    }
    Ok(())
}
