//! `toolpass matrix REPORT...`: several runs side by side, written as
//! `DIR/index.html`, `DIR/matrix.md` and `DIR/badges/<implementation>.json`
//! and `.svg`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use toolpass::matrix::{Matrix, badge, html, markdown};
use toolpass::report::read;
use toolpass::report::text::counted;

#[derive(Debug, Args)]
pub(super) struct MatrixArgs {
    /// The runs' reports (`toolpass run --jsonl FILE`), one column each,
    /// in this order.
    #[arg(required = true, value_name = "REPORT")]
    reports: Vec<PathBuf>,
    /// Where to write `index.html`, `matrix.md` and `badges/`; created
    /// when missing.
    #[arg(long, value_name = "DIR", default_value = "target/matrix")]
    out: PathBuf,
}

pub(super) fn run(args: &MatrixArgs) -> anyhow::Result<ExitCode> {
    let reports = args
        .reports
        .iter()
        .map(|path| read::read(path))
        .collect::<Result<Vec<_>, _>>()?;
    let matrix = Matrix::new(&reports);
    let badges = args.out.join("badges");
    std::fs::create_dir_all(&badges)
        .with_context(|| format!("cannot create {}", badges.display()))?;
    write(&args.out.join("index.html"), &html::render(&matrix))?;
    write(&args.out.join("matrix.md"), &markdown::render(&matrix))?;
    for column in &matrix.columns {
        let badge = badge::badge(column);
        let mut json =
            serde_json::to_string_pretty(&badge).context("failed to write a badge as JSON")?;
        json.push('\n');
        write(&badges.join(format!("{}.json", column.slug)), &json)?;
        write(
            &badges.join(format!("{}.svg", column.slug)),
            &badge::svg(&badge),
        )?;
    }
    writeln!(
        std::io::stdout().lock(),
        "{} × {}: {}",
        counted(matrix.rows.len(), "scenario", "scenarios"),
        counted(matrix.columns.len(), "implementation", "implementations"),
        args.out.display()
    )
    .context("failed to write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
