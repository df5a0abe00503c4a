//! The instruction-count gate's benches: the hot paths under callgrind
//! (gungraun), one run each, counted in instructions rather than timed, so
//! that CI on a shared, noisy machine can fail on a 2% regression.
//!
//! Every input is generated from a fixed seed ([`toolpass_benches::input`])
//! or is a file of the repository; nothing reads the clock or the
//! environment, except [`SLOWDOWN_ENV`], which exists to prove the gate
//! bites. Setup (generating a file, writing a corpus) runs before the
//! measured function and is not counted.
//!
//! Run through the gate (`cargo run -p toolpass-benches --bin
//! instruction-gate`, or `just bench-gate`), which compares each count with
//! `benches/baselines/instructions.tsv`; `just bench-bless` rewrites that
//! file. The benches alone: `cargo bench -p toolpass-benches --bench
//! instructions` (needs valgrind and the matching `gungraun-runner`).

#![allow(
    missing_docs,
    reason = "gungraun's macros generate undocumented modules and items"
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gungraun::{
    Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group, main,
};
use serde_json::{Value, json};
use toolpass_benches::batch::{batch_texts, entries, output_parts};
use toolpass_benches::gate::{SLOWDOWN_ENV, slowdown_for};
use toolpass_benches::{Case, code_like_text};
use toolpass_core::budget::{BatchReport, DEFAULT_BATCH_BUDGET, plan_batch};
use toolpass_core::matching::{SliceMatch, find_matched_slice};
use toolpass_core::truncate::{Limits, truncate};
use toolpass_scenario::{Scenario, load_files};
use toolpass_tools::sandbox::Sandbox;
use toolpass_tools::scheduler::execute_call;
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::{Declared, Tool};
use toolpass_tools::tools::grep_search::render::{Budget, render};
use toolpass_tools::tools::grep_search::search::{Search, Strategy};
use toolpass_tools::tools::{edit::EditTool, read_file::ReadFileTool};

/// A measured input and the extra work the slowdown switch asks for.
struct Input<T> {
    value: T,
    extra: u64,
}

impl<T> Input<T> {
    fn new(id: &str, value: T) -> Self {
        Input {
            value,
            extra: slowdown_for(std::env::var(SLOWDOWN_ENV).ok().as_deref(), id)
                .unwrap_or_else(|e| panic!("{e}")),
        }
    }

    /// Does the extra work, if any, and hands out the input.
    fn take(&self) -> &T {
        for i in 0..self.extra {
            black_box(i);
        }
        &self.value
    }
}

fn matching_input(id: &str, case: Case, bytes: usize) -> Input<(String, String)> {
    let file = code_like_text(bytes);
    let needle = case.needle(&file);
    Input::new(id, (file, needle))
}

#[library_benchmark]
#[bench::exact_hit_1mib(setup = matching_input, args = ("matching::exact_hit_1mib", Case::ExactHitAtEnd, 1 << 20))]
#[bench::chain_fails_1mib(setup = matching_input, args = ("matching::chain_fails_1mib", Case::ChainFails, 1 << 20))]
#[bench::fuzzy_hit_1mib(setup = matching_input, args = ("matching::fuzzy_hit_1mib", Case::FuzzyHitNearEnd, 1 << 20))]
fn matching(input: Input<(String, String)>) -> Option<SliceMatch> {
    let (file, needle) = input.take();
    find_matched_slice(black_box(file), black_box(needle))
}

fn truncation_input(id: &str, bytes: usize) -> Input<String> {
    Input::new(id, code_like_text(bytes))
}

#[library_benchmark]
#[bench::both_1mib(setup = truncation_input, args = ("truncation::both_1mib", 1 << 20))]
#[bench::both_16mib(setup = truncation_input, args = ("truncation::both_16mib", 16 << 20))]
fn truncation(input: Input<String>) -> Option<String> {
    let output = input.take();
    truncate(black_box(output), &Limits::default()).map(|t| t.preview())
}

fn budget_input(id: &str, results: usize, total: usize) -> Input<(Vec<String>, Vec<String>)> {
    // One call id for all: the spills' naming at its worst, every one a
    // collision.
    let ids = vec!["call".to_owned(); results];
    Input::new(id, (batch_texts(results, total), ids))
}

// The batch budget at Qwen's default over a batch of uneven results, each
// spill named, none written: the plan and the cut.
#[library_benchmark]
#[bench::batch_1000_4mib(setup = budget_input, args = ("budget::batch_1000_4mib", 1_000, 4 << 20))]
fn budget(input: Input<(Vec<String>, Vec<String>)>) -> Option<BatchReport> {
    let (texts, ids) = input.take();
    let parts = output_parts(texts);
    let entries = entries(ids, &parts);
    let plan = plan_batch(black_box(&entries), DEFAULT_BATCH_BUDGET).cut()?;
    let written: Vec<Option<String>> = plan
        .spills()
        .iter()
        .map(|s| Some(format!("/spill/{}.txt", s.call_id)))
        .collect();
    Some(plan.finish(&written).report)
}

/// A fresh directory at a fixed path: the path's length and the directory
/// names are part of what the tools hash and print, so a random temporary
/// name would move the counts between runs.
fn fixed_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolpass-gate-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("the old bench directory is removable");
    }
    std::fs::create_dir_all(&dir).expect("the bench directory is creatable");
    dir.canonicalize().expect("the bench directory resolves")
}

/// What grep_search searches with: a word-bounded alternation that hits
/// about one line in fifty of the generated text.
const GREP_PATTERN: &str = r"\b(?:handler_\d+7|label_\d+3)\b";

/// A corpus of 256 files of 16 KiB in 16 directories, cut at line
/// boundaries from one generated 4 MiB text.
fn grep_corpus(id: &str) -> Input<PathBuf> {
    let dir = fixed_dir("grep");
    let text = code_like_text(4 << 20);
    let mut rest = text.as_str();
    for n in 0..256 {
        let cut = rest.len().min(16 << 10);
        let cut = rest.as_bytes()[..cut]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let sub = dir.join(format!("mod_{:02}", n / 16));
        std::fs::create_dir_all(&sub).expect("a corpus directory");
        std::fs::write(sub.join(format!("file_{n:03}.rs")), &rest[..cut]).expect("a corpus file");
        rest = &rest[cut..];
    }
    Input::new(id, dir)
}

// grep_search's core: the walk and search over the corpus, then every hit
// rendered in Qwen's format without the character budget. The walk's
// worker threads are counted too (see the group's config).
#[library_benchmark]
#[bench::search_256_files(setup = grep_corpus, args = ("grep::search_256_files"))]
fn grep(input: Input<PathBuf>) -> usize {
    let dir = input.take();
    let search =
        Search::new(GREP_PATTERN, None, Strategy::SystemGrep).expect("the pattern compiles");
    let sandbox = Sandbox::new(dir).expect("a sandbox over the corpus");
    let files = search
        .run(&sandbox, sandbox.root())
        .expect("the corpus opens");
    let out = render(
        GREP_PATTERN,
        "in the workspace directory",
        None,
        &files,
        Budget::UNLIMITED,
    );
    out.llm_content.len()
}

/// A session over a fixed directory holding one 64 KiB generated file,
/// already read once (edit requires it, as Qwen does), and the call to make.
fn tool_call(id: &str, tool: &'static str) -> Input<(Session, &'static str, Value)> {
    let dir = fixed_dir(tool);
    let text = code_like_text(64 << 10);
    let path = dir.join("module.rs");
    std::fs::write(&path, &text).expect("the bench file");
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(Declared::<ReadFileTool>::default()),
        Arc::new(Declared::<EditTool>::default()),
    ];
    let session = Session::new(&dir, SessionConfig::default(), tools).expect("a session");
    let file = path.to_string_lossy().into_owned();
    let read = json!({ "file_path": file });
    let call = if tool == "edit" {
        assert!(!execute_call(&session, "read_file", &read).result.is_error());
        let old = Case::ExactHitAtEnd.needle(&text);
        json!({ "file_path": file, "old_string": old, "new_string": "    // done\n" })
    } else {
        read
    };
    Input::new(id, (session, tool, call))
}

// One call through the tool layer as the server makes it: argument
// validation, confinement, the read or the matched rewrite, and the result.
#[library_benchmark]
#[bench::read_file_64kib(setup = tool_call, args = ("tools::read_file_64kib", "read_file"))]
#[bench::edit_64kib(setup = tool_call, args = ("tools::edit_64kib", "edit"))]
fn tools(input: Input<(Session, &'static str, Value)>) -> bool {
    let (session, name, call) = input.take();
    let outcome = execute_call(session, name, call);
    assert!(!outcome.result.is_error(), "{:?}", outcome.result.error);
    true
}

/// A suite of `count` scenarios generated from three shapes (a call with
/// files and `expect_files`, a confirmation with an `fs` step between, a
/// batch with captures), each file distinct: the loader's work on a fixed
/// corpus. Not the built-in suite, whose count grows with every scenario
/// added and would fail the gate for it.
fn generated_suite(id: &str, count: usize) -> Input<Vec<(PathBuf, Vec<u8>)>> {
    let shapes = [
        "title: edit {n} keeps the other lines\nspec: edit.match.exact\ntags: [edit, bench]\n\
         files:\n  f{n}.txt: \"alpha {n}\\nbeta\\ngamma\\n\"\nsteps:\n\
         \x20 - call: read_file\n    args: {file_path: \"{root}/f{n}.txt\"}\n\
         \x20 - call: edit\n    args: {file_path: \"{root}/f{n}.txt\", old_string: \"beta\", new_string: \"b{n}\"}\n\
         \x20   expect: {status: success, llm: {contains: \"f{n}.txt\"}}\n\
         \x20 - expect_files:\n      f{n}.txt: \"alpha {n}\\nb{n}\\ngamma\\n\"\n",
        "title: confirmation {n} sees a change made meanwhile\nspec: prior-read.toctou.windows\n\
         requires: [prior_read, confirm]\nconfig:\n  approvalMode: default\n\
         files:\n  c{n}.txt: \"one\\ntwo {n}\\n\"\nsteps:\n\
         \x20 - call: read_file\n    args: {file_path: \"{root}/c{n}.txt\"}\n\
         \x20 - call: edit\n    id: e{n}\n    args: {file_path: \"{root}/c{n}.txt\", old_string: \"one\", new_string: \"1\"}\n\
         \x20   expect: {status: awaiting_confirmation, confirmation: {type: edit}}\n\
         \x20 - fs: {append: {c{n}.txt: \"three\\n\"}}\n\
         \x20 - confirm: proceed_once\n    call_id: e{n}\n\
         \x20   expect: {status: error, error: file_changed_since_read}\n",
        "title: batch {n} reads two files\nspec: edit.match.exact\nrequires: [batch]\n\
         files:\n  a{n}.txt: \"a\\n\"\n  d{n}/b.txt: \"b {n}\\n\"\nsteps:\n\
         \x20 - batch:\n      - call: read_file\n        args: {file_path: \"{root}/a{n}.txt\"}\n\
         \x20       expect: {status: success}\n      - call: read_file\n\
         \x20       args: {file_path: \"{root}/d{n}/b.txt\"}\n\
         \x20       expect: {status: success, llm: {regex: \"b [0-9]+\"}}\n\
         \x20 - capture: {word: \"b ([0-9]+)\"}\n",
    ];
    let files = (0..count)
        .map(|n| {
            let text = shapes[n % shapes.len()].replace("{n}", &n.to_string());
            (
                PathBuf::from(format!("bench/s{n:04}.yaml")),
                text.into_bytes(),
            )
        })
        .collect();
    Input::new(id, files)
}

// Parsing and checking a suite of 300 scenarios, as `toolpass run` does
// before its first call.
#[library_benchmark]
#[bench::suite_300(setup = generated_suite, args = ("scenarios::suite_300", 300))]
fn scenarios(input: Input<Vec<(PathBuf, Vec<u8>)>>) -> Vec<Scenario> {
    let files = input.take();
    let suite = load_files(
        Path::new("scenarios"),
        files
            .iter()
            .map(|(path, bytes)| (path.as_path(), bytes.as_slice())),
    )
    .expect("the generated scenarios load");
    assert_eq!(suite.len(), files.len());
    suite
}

library_benchmark_group!(name = hot_paths; benchmarks = matching, truncation, budget, grep, tools, scenarios);

main!(
    config = LibraryBenchmarkConfig::default()
        .pass_through_env(SLOWDOWN_ENV)
        // The walk's workers run in threads of their own, which the default
        // entry point (the bench function) does not reach: collect in them
        // while they visit an entry (open, search, collect one file's hits).
        // Only workers visit, so the main thread's count is not toggled off.
        // Their thread bodies are inlined, so the visit is the outermost
        // symbol there is; the per-thread set-up is left out, which also
        // keeps the count independent of the number of cores.
        .tool(Callgrind::with_args([
            "--toggle-collect=<toolpass_tools::tools::grep_search::search::GrepWalk as toolpass_tools::tools::walk::Visitor>::visit"
        ]));
    library_benchmark_groups = hot_paths
);
