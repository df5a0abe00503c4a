//! The scenario model: YAML transcripts of tool calls ("scenarios"), their
//! loader with positioned errors, validation, matchers, placeholders, and
//! the scenario JSON Schema.
//!
//! The runner uses it in three moves: [`load_dir`] reads and checks every
//! scenario before anything runs (every problem of every file, each as
//! `path:line:column: message`); for each step it substitutes placeholders
//! with a [`Vars`] ([`Args::substitute`], [`Matcher::substitute`],
//! [`Json::substitute`]); and it judges what the implementation answered
//! with [`Matcher::check`] and [`json_subset`], whose [`Mismatch`] carries
//! the expected and actual text for a diff.
//!
//! ```
//! use toolpass_scenario::{StepKind, Vars, parse_str};
//!
//! let scenario = parse_str(r#"
//! title: A missing file is reported
//! spec: read_file.missing
//! steps:
//!   - call: read_file
//!     args: {file_path: "{root}/nope.txt"}
//!     expect:
//!       status: error
//!       error: file_not_found
//!       llm: {contains: "{root}/nope.txt"}
//! "#, "read/missing").unwrap();
//!
//! let StepKind::Call(call) = &scenario.steps[0].kind else { unreachable!() };
//! let vars = Vars::new("/tmp/sandbox");
//! let args = call.args.substitute(&vars).unwrap();
//! assert_eq!(args["file_path"], "/tmp/sandbox/nope.txt");
//! let llm = call.expect.as_ref().unwrap().llm.as_ref().unwrap().substitute(&vars).unwrap();
//! assert!(llm.check("File not found: /tmp/sandbox/nope.txt").is_ok());
//! ```
//!
//! # The format
//!
//! `scenarios/README.yaml` describes it by example; the committed schema
//! (`schema/scenario.json`, [`scenario_schema`]) is its reference, with a
//! description on every key. The decisions that the example leaves open:
//!
//! - **Top level**: `title` and `spec` are required (`spec`: one clause
//!   id of SPEC.md or a list of them, held to the clauses by
//!   [`Clauses::check`]: known ids, the level of the strongest clause
//!   cited, a `safety` scenario citing a safety clause); `level` is
//!   `required` (default), `recommended`, `optional` or `pending`, which
//!   needs a `reason`; `tags`; `requires` (features of toolpass/1, checked;
//!   steps imply more, see [`Scenario::features`]); `config` is the
//!   protocol's session config, camelCase keys and all; `files`; `steps`.
//! - **Files** (`files`, `fs: {write: ...}`): `path: "text"`,
//!   `{text: "...", mode: "755"}`, `{base64: "..."}` (a mode may follow),
//!   `{symlink: target}`. A mode is a *quoted* string of 3 or 4 octal
//!   digits; a YAML number is refused, because `0o755`, `0755` and `755`
//!   read as three different numbers depending on the YAML version.
//! - **Steps** are maps with one kind key and the keys that go with it:
//!   `call` (`id`, `args`, `expect`), `batch` (a list of `{call, id, args,
//!   expect}`), `confirm: <outcome>` (`call_id`, `modified_content`,
//!   `answers`, `expect`), `fs` (one action or a list: `write`, `append`,
//!   `delete`, `touch` with `{mtime: <epoch s>}` or `{mtime_offset: <s from
//!   now>}`, `chmod`, `symlink`, `mkdir`), `fault: {point, times, skip}`,
//!   `expect_tools` (`includes`, `excludes`, `exact` as a set, `schema:
//!   {tool: json subset}`), `expect_files` (path → text, or `{text | base64
//!   | symlink | matches, mode}`, or `{absent: true}`, or `{any_of: [alt,
//!   ...]}` of those; with `exact: true`
//!   beside it, no other file may exist), `wait_notice: <matcher>` (`kind`,
//!   `timeout_ms`), `capture: {name: regex}` (`from: llm | error_message |
//!   persisted_output | notice`).
//! - **Per-step level**: `level:` on any step overrides the scenario's for
//!   that step (never `pending`), so one scenario can judge bytes at
//!   `required` and prose at `recommended`.
//! - **Matchers**: a string is equality; a map of `equals`, `contains`,
//!   `not_contains`, `regex`, `starts_with`, `ends_with` (each one string
//!   or a list), `lines`, `chars` (a count or `{min, max}`), `snapshot`
//!   (`true`: named after the step number, or a name) must all hold; a
//!   list of those must all hold.
//! - **Placeholders**: `{root}` and captured `{name}`s in every string a
//!   scenario sends or compares (arguments, file contents and link
//!   targets, matchers, JSON subsets). `{{name}}` is the literal `{name}`;
//!   every other brace is literal. See [`placeholder`].
//! - **YAML** is read as YAML 1.2: `yes`, `no`, `on`, `off` are text, not
//!   booleans, and `0755` is the text `0755`, not a number.
//! - **Snapshots** are `<scenario>.<name>.snap` next to the scenario, with
//!   the sandbox root written `{root}`; [`Matcher::bless`] writes them.

mod citations;
mod clauses;
mod confine;
mod error;
mod expect;
mod files;
mod forms;
#[doc(hidden)]
pub mod fuzzing;
mod json;
mod level;
mod load;
mod located;
mod matcher;
pub mod placeholder;
mod recover;
mod safety;
mod scenario;
mod schema;
mod step;
mod subset;
mod suggest;
mod validate;

pub use citations::{Coverage, SAFETY_TAG};
pub use clauses::{Clause, Clauses, Strength};
pub use error::{Error, ErrorKind};
pub use expect::{Expect, RpcError};
pub use files::{Content, FileEntry, FileExpectation, FsAction, Mode, Mtime, RelPath, Touch};
pub use forms::Range;
pub use json::{Args, Json};
pub use level::Level;
pub use load::{LoadError, LoadErrors, load_dir, load_file, load_files, parse_str, yaml_error};
pub use located::{Located, Pos};
pub use matcher::{Condition, Matcher, Mismatch, Pattern, Snapshot, SnapshotName};
pub use placeholder::{OUTSIDE, OUTSIDE_PREFIX, ROOT, Vars, outside_of, private_of};
pub use scenario::Scenario;
pub use schema::{scenario_schema, scenario_schema_value};
pub use step::{
    Batch, Call, Cancel, Capture, CaptureSource, Confirm, ExpectFiles, ExpectNoProcesses,
    ExpectTools, Fault, Join, NoArguments, Step, StepKind, WaitNotice, WaitUpdate,
};
pub use subset::{json_exact, json_subset};
