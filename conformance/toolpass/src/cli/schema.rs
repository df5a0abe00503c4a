//! `toolpass schema`: prints the generated JSON Schemas, so editors,
//! adapter authors and report readers get them from the binary they use.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub(super) struct SchemaArgs {
    #[command(subcommand)]
    which: Which,
}

#[derive(Debug, Subcommand)]
enum Which {
    /// The scenario file format (scenarios/<area>/<name>.yaml).
    Scenario,
    /// One line of `toolpass run --jsonl`: header, step, scenario or footer.
    Report,
    /// The toolpass/1 message bodies: without a name, the list of schema
    /// files; with one, that schema.
    Protocol {
        /// A file name from the list (`outcome.json`), with or without
        /// `.json`.
        name: Option<String>,
    },
}

pub(super) fn run(args: &SchemaArgs) -> anyhow::Result<ExitCode> {
    let text = match &args.which {
        Which::Scenario => toolpass_scenario::scenario_schema(),
        Which::Report => toolpass::report::jsonl::schema_text(),
        Which::Protocol { name: None } => {
            let mut text = String::new();
            for file in toolpass_protocol::schemas() {
                text.push_str(&file.file_name);
                text.push('\n');
            }
            text
        }
        Which::Protocol { name: Some(name) } => {
            let schemas = toolpass_protocol::schemas();
            let wanted = name.strip_suffix(".json").unwrap_or(name);
            let Some(file) = schemas
                .iter()
                .find(|f| f.file_name.strip_suffix(".json") == Some(wanted))
            else {
                let names: Vec<&str> = schemas.iter().map(|f| f.file_name.as_str()).collect();
                bail!(
                    "no protocol schema named `{name}`; there are: {}",
                    names.join(", ")
                );
            };
            let mut text =
                serde_json::to_string_pretty(&file.schema).context("failed to print the schema")?;
            text.push('\n');
            text
        }
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("failed to write to stdout")?;
    Ok(ExitCode::SUCCESS)
}
