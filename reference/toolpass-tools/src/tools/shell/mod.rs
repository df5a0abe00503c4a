//! `run_shell_command`: Qwen Code's `ShellTool` (`packages/core/src/tools/
//! shell.ts`, 0.24.4) on the process runner of `toolpass-shell`.
//!
//! - **Build** checks what Qwen's `validateToolParamValues` checks: a
//!   command that is not blank, does not end this server's own process
//!   (`command::targets_agent`) and names a program, no bare trailing `&` on
//!   a background command, no leading `sleep N` (N ≥ 2 s) in the
//!   foreground, and a `directory` that is absolute and inside the session
//!   root as it resolves now (symlinks followed: beyond Qwen, which
//!   remembers a directory's resolution for the session).
//! - **Asking** ([`read_only`]): a command runs unasked when Qwen's
//!   classifier finds it read-only in its directory, or when the line is
//!   nothing but programs each allowed for the session by an earlier
//!   "proceed always" (`command::runs`: a substitution, a redirection into
//!   a file, a here-document, a wrapper or a group always asks);
//!   otherwise it asks (an `exec` confirmation naming the programs of the
//!   chained commands that are neither read-only nor allowed, or all of
//!   them when none is left). In plan mode a
//!   write is refused, an unknown command is asked once, a read-only one
//!   runs.
//! - **Running** ([`foreground`]): `bash -c` on a pty when one opens, in
//!   the directory resolved again at the start, with Qwen's timeout (120 s
//!   unless given), the call's cancellation ending the whole family, and
//!   the output streamed to the call's updates; the result in Qwen's words,
//!   held to the shell's own budget.
//! - **Background** ([`background`]): launched in the session's registry,
//!   answered at once; the end is a notice to the call that started it.
//! - **`sed -i`** ([`sed`]): a lone substitution on one file is asked as
//!   an edit and written as `edit` writes, when the call would ask.

mod background;
mod foreground;
mod read_only;
mod sed;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};
use toolpass_core::approval::Permission;
use toolpass_core::shell_read_only::Safety;
use toolpass_shell::{Request, command};

use crate::classifier;
use crate::confirmation::Confirmation;
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::result::{Failure, ToolResult};
use crate::sandbox::PathErrorKind;
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;
use read_only::Judge;
use sed::SedEdit;

/// The tool's name.
pub const NAME: &str = "run_shell_command";

/// `run_shell_command`.
#[derive(Debug, Default)]
pub struct ShellTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct ShellParams {
    command: String,
    #[serde(default)]
    is_background: Option<bool>,
    /// Milliseconds, 1 to 600 000 (the schema holds it there).
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    directory: Option<String>,
}

impl ShellParams {
    /// What the runner is asked to run in `directory`: the command with
    /// the blanks and line breaks at its ends removed, which bash ignores
    /// (a carriage return or a form feed is part of a word to it),
    /// and the session's id in its environment. Qwen trims with
    /// JavaScript's `trim()`, which also drops a no-break space or an
    /// ideographic space ending the last word: `rm keep\u{a0}` would remove
    /// `keep`, not the file the user approved.
    fn request(&self, workspace: &Workspace, directory: PathBuf) -> Request {
        Request {
            command: self.command.trim_matches([' ', '\t', '\n']).to_owned(),
            directory,
            context: vec![("QWEN_CODE_SESSION_ID".to_owned(), workspace.id().to_owned())],
        }
    }

    fn background(&self) -> bool {
        self.is_background.unwrap_or(false)
    }

    /// The `directory` argument when it counts (JavaScript's truthiness:
    /// an empty string is the root).
    fn directory(&self) -> Option<&str> {
        self.directory.as_deref().filter(|d| !d.is_empty())
    }
}

impl DeclarativeTool for ShellTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Execute;
    const DECLARATION: &'static str = include_str!("../declarations/run_shell_command.json");
    type Params = ShellParams;

    fn validate_values(
        &self,
        params: &mut ShellParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        let command = params.command.as_str();
        if command.trim().is_empty() {
            return Err(BuildError::invalid("Command cannot be empty."));
        }
        if command::targets_agent(command, this_process()) {
            return Err(BuildError::invalid(format!(
                "Blocked: this command may terminate the running tool layer ({}, pid {}). Use \
                 task_stop for managed background shells, or kill a specific PID instead.",
                this_process()
                    .names
                    .first()
                    .map_or("this server", String::as_str),
                this_process().pid
            )));
        }
        if params.background() && command::ends_in_bare_ampersand(command) {
            return Err(BuildError::invalid(
                "Background shell commands must not end with a bare \"&\". Remove the trailing \
                 \"&\" and rely on is_background: true instead.",
            ));
        }
        if command::command_roots(command).is_empty() {
            return Err(BuildError::invalid(
                "Could not identify command root to obtain permission from user.",
            ));
        }
        if let Some(directory) = params.directory() {
            working_directory(workspace, directory).map_err(BuildError::invalid)?;
        }
        if !params.background()
            && let Some(refusal) = command::blocked_sleep(command)
        {
            return Err(BuildError::invalid(refusal));
        }
        Ok(())
    }

    fn create_invocation(&self, params: ShellParams, workspace: &Workspace) -> Box<dyn Invocation> {
        let root = workspace.sandbox().root().to_string_lossy();
        let directory = params.directory().unwrap_or(&root);
        let judge = Judge::new(Path::new(directory));
        let safety = judge.safety(&params.command);
        let runs = command::runs(&params.command);
        // The allow-list names programs, so it covers only a line that is
        // nothing but them (no substitution, redirection into a file,
        // here-document, wrapper or group).
        let allowed = runs.plain && workspace.shells().all_allowed(&runs.programs);
        let programs = runs.programs;
        let asked = if safety == Safety::ReadOnly || allowed {
            Vec::new()
        } else {
            programs_to_approve(&params.command, &judge, workspace)
        };
        let sed = SedEdit::plan(&params.command, params.background(), directory);
        Box::new(ShellInvocation {
            params,
            programs,
            safety,
            allowed,
            asked,
            sed,
        })
    }

    /// Qwen's `ShellTool.toAutoClassifierInput`: the command and the
    /// directory it runs in (`directory ?? getTargetDir()`).
    fn classifier_input(&self, args: &Value, workspace: &Workspace) -> Map<String, Value> {
        let root = workspace.sandbox().root().to_string_lossy();
        let cwd = match args.get("directory") {
            Some(directory) if !directory.is_null() => directory.clone(),
            _ => Value::from(root.as_ref()),
        };
        classifier::object([
            ("command", classifier::member(args, "command")),
            ("cwd", Some(cwd)),
        ])
    }

    fn max_output_chars(&self, workspace: &Workspace) -> Option<usize> {
        Some(workspace.config().shell_output_threshold)
    }
}

struct ShellInvocation {
    params: ShellParams,
    /// The programs the command runs, each once: its chained commands',
    /// their substitutions' and the ones its wrappers run.
    programs: Vec<String>,
    /// The whole command's safety in its directory.
    safety: Safety,
    /// The line is nothing but its programs and every one was allowed for
    /// the session when the call was made.
    allowed: bool,
    /// The programs of the chained commands that are neither read-only nor
    /// allowed for the session, each once: what the user is asked about.
    asked: Vec<String>,
    /// The `sed -i` edit the command is, when it may be taken over.
    sed: Option<SedEdit>,
}

impl Invocation for ShellInvocation {
    fn description(&self) -> String {
        // Qwen's `getDescription`.
        let p = &self.params;
        let mut text = p.command.clone();
        if let Some(directory) = p.directory() {
            text.push_str(&format!(" [in {directory}]"));
        }
        if p.background() {
            text.push_str(" [background]");
        } else if let Some(timeout) = p.timeout {
            text.push_str(&format!(" [timeout: {timeout}ms]"));
        }
        if let Some(description) = p.description.as_deref().filter(|d| !d.is_empty()) {
            text.push_str(&format!(" ({})", description.replace('\n', " ")));
        }
        text
    }

    fn default_permission(&self) -> Permission {
        // Read-only parts alone do not make a command read-only (`X=…;
        // git diff` sets what git runs), so the whole is judged.
        if self.safety == Safety::ReadOnly || self.allowed {
            Permission::Allow
        } else {
            Permission::Ask
        }
    }

    fn plan_mode_safety(&self) -> Option<Safety> {
        Some(self.safety)
    }

    fn confirmation(&self, workspace: &Workspace) -> Result<Confirmation, Failure> {
        if let Some(sed) = &self.sed
            && let Some(edit) = sed.confirmation(workspace)?
        {
            return Ok(Confirmation::Edit(edit));
        }
        Ok(Confirmation::Exec {
            title: "Confirm Shell Command".to_owned(),
            command: self.params.command.clone(),
            root_command: self.shown().join(", "),
        })
    }

    fn proceed_always(&self, workspace: &Workspace) {
        // Always for a sed edit is the approval mode's (auto-edit), as for
        // any edit; for a command, the programs it was asked about.
        if !self.sed.as_ref().is_some_and(SedEdit::was_shown) {
            workspace.shells().allow(self.shown());
        }
    }

    fn execute(
        &self,
        workspace: &Workspace,
        context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        // Resolved again: a directory may have been swapped for a symlink
        // since the call was built (or while it awaited confirmation).
        let directory = match self.params.directory() {
            Some(directory) => working_directory(workspace, directory)
                .map_err(|message| Failure::new(ToolErrorCode::InvalidToolParams, message))?,
            None => workspace.sandbox().root().to_owned(),
        };
        if let Some(sed) = &self.sed
            && let Some(edited) = sed.execute(workspace)?
        {
            return Ok(edited);
        }
        if self.params.background() {
            let request = self.params.request(workspace, directory);
            background::launch(workspace, context, &request)
        } else {
            let request = self.params.request(workspace, directory);
            foreground::run(workspace, context, &self.params, &request)
        }
    }
}

impl ShellInvocation {
    /// The programs the confirmation names: those still to approve, or all
    /// of them when none is (Qwen's `effectiveSubCommands`).
    fn shown(&self) -> &[String] {
        if self.asked.is_empty() {
            &self.programs
        } else {
            &self.asked
        }
    }
}

/// The programs of the commands `command` chains that are neither
/// read-only in their directory nor allowed for the session, each once, in
/// order (Qwen's `confirmableSubCommands`), with those their substitutions
/// and wrappers run (beyond Qwen's `getCommandRoot`, which names only the
/// first word).
fn programs_to_approve(command: &str, judge: &Judge, workspace: &Workspace) -> Vec<String> {
    let shells = workspace.shells();
    let mut asked: Vec<String> = Vec::new();
    for segment in command::split_commands(command).commands {
        if judge.safety(&segment) == Safety::ReadOnly {
            continue;
        }
        for program in command::runs(&segment).programs {
            if !shells.all_allowed(std::slice::from_ref(&program)) && !asked.contains(&program) {
                asked.push(program);
            }
        }
    }
    asked
}

/// The server's own process, which no command may end (Qwen's
/// `detectSelfKillCommand`): its pid, its executable's file name and its
/// `comm` (the name `pkill` matches, cut to 15 bytes by the kernel).
fn this_process() -> &'static command::Agent {
    static AGENT: std::sync::OnceLock<command::Agent> = std::sync::OnceLock::new();
    AGENT.get_or_init(|| {
        let mut names: Vec<String> = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.file_name().map(|n| n.to_string_lossy().into_owned()))
            .into_iter()
            .collect();
        if let Ok(comm) = std::fs::read_to_string("/proc/self/comm") {
            let comm = comm.trim_end_matches('\n').to_owned();
            if !comm.is_empty() && !names.contains(&comm) {
                names.push(comm);
            }
        }
        command::Agent {
            pid: std::process::id(),
            names,
        }
    })
}

/// Where a command with `directory` runs: the real path, refused (in
/// Qwen's words) unless it is absolute and inside the session root. A
/// directory that does not exist is no refusal here: the run reports it;
/// one whose path cannot be inspected is refused, since where it leads is
/// unknown.
fn working_directory(workspace: &Workspace, directory: &str) -> Result<PathBuf, String> {
    if !directory.starts_with('/') {
        return Err("Directory must be an absolute path.".to_owned());
    }
    let outside = || {
        format!(
            "Directory '{directory}' is not within any of the registered workspace directories."
        )
    };
    match workspace.sandbox().locate(directory) {
        // The spill directory is admitted for reading only; no command runs
        // there.
        Ok(located) if located.is_writable() => Ok(located.path().to_owned()),
        Ok(_) => Err(outside()),
        Err(e) => match e.kind() {
            PathErrorKind::OutsideWorkspace | PathErrorKind::SymlinkLoop => Err(outside()),
            PathErrorKind::Io(_) => Err(e.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_parses_and_matches_qwens_schema() {
        let tool = Declared::<ShellTool>::default();
        let schema = &tool.declaration().schema;
        assert_eq!(schema["required"], serde_json::json!(["command"]));
        assert_eq!(schema["properties"]["timeout"]["maximum"], 600_000);
        assert!(tool.declaration().description.contains("bash -c <command>"));
    }
}
