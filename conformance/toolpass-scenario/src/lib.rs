//! The scenario model: YAML transcripts of tool calls, their loader with
//! positioned errors, the matchers and the scenario JSON Schema.

mod error;
mod files;
mod forms;
mod json;
mod load;
mod located;
mod matcher;
pub mod placeholder;
mod scenario;
mod schema;
mod step;
mod subset;
mod suggest;
mod validate;

pub use error::{Error, ErrorKind};
pub use files::{Content, FileEntry, FileExpectation, FsAction, Mode, Mtime, RelPath, Touch};
pub use forms::Range;
pub use json::{Args, Json};
pub use load::{LoadError, LoadErrors, load_dir, load_file, parse_str};
pub use located::{Located, Pos};
pub use matcher::{Condition, Matcher, Mismatch, Pattern, Snapshot, SnapshotName};
pub use placeholder::Vars;
pub use scenario::{Expect, Level, Scenario};
pub use schema::{scenario_schema, scenario_schema_value};
pub use step::{
    Call, Capture, CaptureSource, Confirm, ExpectFiles, ExpectTools, Fault, Step, StepKind,
    WaitNotice,
};
pub use subset::json_subset;
