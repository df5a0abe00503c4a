//! Features: what an implementation offers beyond `tools/list` and
//! `tools/call`, advertised in `capabilities.toolpass.features` and required
//! by scenarios. Fault points: where `toolpass/fault` can inject a failure.
//!
//! Both are open vocabularies: a feature or point this version does not know
//! still parses (as `Unknown`), so a newer implementation is not refused for
//! advertising more, and an unsupported point reaches the server, which
//! answers -32601 rather than -32602.

use std::fmt;

use crate::strings::{open_vocabulary, string_serde};

open_vocabulary! {
    /// A place where `toolpass/fault` makes the next operations fail.
    pub enum FaultPoint {
        /// Updating the tool declarations the model sees fails, so a scenario
        /// can check that the change is rolled back.
        DeclarationsUpdate => "declarations.update",
        /// The file changes between the last freshness check and the write.
        WriteBeforeCommit => "write.before_commit",
        /// A stat fails, so a scenario can check that the tool fails closed.
        FsStat => "fs.stat",
        /// An MCP server connection drops.
        McpDisconnect => "mcp.disconnect",
        /// The next call parks when it starts executing, sends one update,
        /// and waits until it is cancelled (`notifications/cancelled`), so
        /// a scenario can cancel a call in flight without a tool that runs
        /// long on its own. A testing aid the reference offers; a real tool
        /// layer need not.
        CallPark => "call.park",
        /// Armed with `times: N`, the next N calls to start executing wait
        /// until all N have started (each fails, saying so, when they do
        /// not within seconds), so a scenario proves that a batch's calls
        /// run at once by their effect rather than by a clock.
        CallRendezvous => "call.rendezvous",
    }
}

/// The prefix of a fault feature: `fault:<point>`.
const FAULT_PREFIX: &str = "fault:";

/// Something an implementation offers beyond `tools/list` and `tools/call`.
///
/// On the wire a string; `fault:<point>` names one supported fault point.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// `toolpass/session.open` and `toolpass/session.close`: per-session
    /// roots, config and state.
    Sessions,
    /// Edits and writes require a prior read of the file in the session.
    PriorRead,
    /// `toolpass/fault` supports this point.
    Fault(FaultPoint),
    /// Calls can stop at `awaiting_confirmation`, answered by
    /// `toolpass/confirm`.
    Confirm,
    /// `notifications/cancelled` reaches a call in flight, and the call is
    /// answered with `status: cancelled` (or with its result, when it had
    /// already finished).
    Cancel,
    /// `notifications/progress` during a call that carried a
    /// `progressToken`: what the tool streams while it runs.
    Updates,
    /// `toolpass/batch`: several calls at once under the batch output budget.
    Batch,
    /// `toolpass/notice` notifications for out-of-band events.
    Notices,
    /// Deferred tools: declared by name only (in the deferred-tools
    /// reminder of `tools/list`) and found with `tool_search`.
    DeferredTools,
    /// The reveal model: `tool_search` adds what it finds to `tools/list`;
    /// a session picks it with `deferredTools: reveal`.
    DeferredReveal,
    /// The proxy model: hidden tools are called through `tool_call`; a
    /// session picks it with `deferredTools: proxy`.
    DeferredProxy,
    /// Tools from MCP servers named in the session config.
    Mcp,
    /// Shell commands that run in the background and report when done.
    BackgroundShell,
    /// Foreground shell commands run on a pseudo-terminal: one output
    /// stream, shown as a terminal shows it (a `\r` returns to the start
    /// of the line and what follows overwrites it). Without it they run on
    /// pipes and the output is the bytes written, escape sequences removed.
    ShellPty,
    /// Large outputs are spilled to files (`persistedOutputPath`,
    /// `resultFilePaths`).
    SpillFiles,
    /// Qwen Code's collaboration tools: `todo_write`, `ask_user_question`
    /// (answered through `toolpass/confirm`'s `answers`), `task_create` and
    /// `send_message`.
    CollabTools,
    /// An `awaiting_confirmation` Outcome carries `classifierInput`: what
    /// the auto-mode classifier would be shown of the call.
    ClassifierInput,
    /// A feature this version does not know, kept verbatim.
    Unknown(String),
}

impl Feature {
    /// Every feature this version knows, with one `fault:<point>` per known
    /// point.
    pub const KNOWN: &'static [Feature] = &[
        Feature::Sessions,
        Feature::PriorRead,
        Feature::Fault(FaultPoint::DeclarationsUpdate),
        Feature::Fault(FaultPoint::WriteBeforeCommit),
        Feature::Fault(FaultPoint::FsStat),
        Feature::Fault(FaultPoint::McpDisconnect),
        Feature::Fault(FaultPoint::CallPark),
        Feature::Fault(FaultPoint::CallRendezvous),
        Feature::Confirm,
        Feature::Cancel,
        Feature::Updates,
        Feature::Batch,
        Feature::Notices,
        Feature::DeferredTools,
        Feature::DeferredReveal,
        Feature::DeferredProxy,
        Feature::Mcp,
        Feature::BackgroundShell,
        Feature::ShellPty,
        Feature::SpillFiles,
        Feature::CollabTools,
        Feature::ClassifierInput,
    ];

    /// The feature for `text`; never fails, see [`Feature::Unknown`].
    /// `fault:<point>` with any non-empty point is a fault feature.
    pub fn parse(text: &str) -> Feature {
        match text {
            "sessions" => Feature::Sessions,
            "prior_read" => Feature::PriorRead,
            "confirm" => Feature::Confirm,
            "cancel" => Feature::Cancel,
            "updates" => Feature::Updates,
            "batch" => Feature::Batch,
            "notices" => Feature::Notices,
            "deferred_tools" => Feature::DeferredTools,
            "deferred_tools:reveal" => Feature::DeferredReveal,
            "deferred_tools:proxy" => Feature::DeferredProxy,
            "mcp" => Feature::Mcp,
            "background_shell" => Feature::BackgroundShell,
            "shell_pty" => Feature::ShellPty,
            "spill_files" => Feature::SpillFiles,
            "collab_tools" => Feature::CollabTools,
            "classifier_input" => Feature::ClassifierInput,
            other => match other.strip_prefix(FAULT_PREFIX) {
                Some(point) if !point.is_empty() => Feature::Fault(FaultPoint::parse(point)),
                _ => Feature::Unknown(other.to_owned()),
            },
        }
    }

    /// Whether this version knows the feature (for a fault feature: the
    /// point).
    pub fn is_known(&self) -> bool {
        match self {
            Feature::Fault(point) => point.is_known(),
            Feature::Unknown(_) => false,
            _ => true,
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Feature::Sessions => "sessions",
            Feature::PriorRead => "prior_read",
            Feature::Fault(point) => return write!(f, "{FAULT_PREFIX}{point}"),
            Feature::Confirm => "confirm",
            Feature::Cancel => "cancel",
            Feature::Updates => "updates",
            Feature::Batch => "batch",
            Feature::Notices => "notices",
            Feature::DeferredTools => "deferred_tools",
            Feature::DeferredReveal => "deferred_tools:reveal",
            Feature::DeferredProxy => "deferred_tools:proxy",
            Feature::Mcp => "mcp",
            Feature::BackgroundShell => "background_shell",
            Feature::ShellPty => "shell_pty",
            Feature::SpillFiles => "spill_files",
            Feature::CollabTools => "collab_tools",
            Feature::ClassifierInput => "classifier_input",
            Feature::Unknown(text) => text,
        })
    }
}

impl std::str::FromStr for Feature {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Feature, Self::Err> {
        Ok(Feature::parse(text))
    }
}

string_serde!(Feature);
