//! Whether a call runs, asks the user first, or is refused: Qwen Code's
//! approval decision (0.24.4, `packages/core/src/core/permissionFlow.ts`:
//! `needsConfirmation`, `isPlanModeBlocked`, `isAutoEditApproved`; the order
//! in `coreToolScheduler.ts`'s `_schedule`), without permission rules, hooks
//! or the classifier mode, which toolpass sessions do not configure.
//!
//! The decision has two halves because Qwen computes the confirmation
//! details in between: [`before_details`] looks at the tool's default
//! permission and the approval mode; only when it says
//! [`Gate::NeedsDetails`] does the tool prepare what the user would be
//! shown (an edit computes its diff, and may fail right there), and
//! [`after_details`] then looks at the kind of confirmation. In plan mode
//! a shell command is judged by what it does instead ([`plan_shell`]).

use crate::shell_read_only::Safety;

/// The session's approval mode, Qwen's `ApprovalMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApprovalMode {
    /// Read-only: a call that would need a confirmation is refused.
    Plan,
    /// Every call whose tool asks is put to the user.
    Default,
    /// Edit confirmations (and information prompts) are approved without
    /// asking; other kinds still ask.
    AutoEdit,
    /// Nothing asks.
    Yolo,
}

/// What a tool says about itself before any rule applies: Qwen's
/// `getDefaultPermission()` (read-only tools `allow`, `edit` and
/// `write_file` `ask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
    /// Runs without asking in every mode.
    Allow,
    /// Asks, unless the mode approves it.
    Ask,
    /// Never runs.
    Deny,
}

/// What kind of question the user would be asked: the `type` of Qwen's
/// `ToolCallConfirmationDetails`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfirmationKind {
    /// A file change with its diff.
    Edit,
    /// A shell command.
    Exec,
    /// A call of an MCP server's tool.
    Mcp,
    /// A yes-or-no about anything else (a fetch, a search).
    Info,
    /// Questions the user answers (`ask_user_question`): the confirmation
    /// is the tool itself.
    AskUserQuestion,
}

/// The decision at one point of the flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gate {
    /// Run it now.
    Run,
    /// Compute the confirmation details, then ask [`after_details`].
    NeedsDetails,
    /// Put the question to the user and wait for the answer.
    Ask,
    /// The tool's default permission is `deny`.
    Denied,
    /// Plan mode refuses a call that would change something.
    PlanBlocked,
}

/// Qwen's decision before the confirmation details exist: a denied tool is
/// refused, an allowed one runs (in plan mode too: read-only tools are what
/// plan mode is for), and in YOLO nothing asks.
#[must_use]
pub const fn before_details(permission: Permission, mode: ApprovalMode) -> Gate {
    match (permission, mode) {
        (Permission::Deny, _) => Gate::Denied,
        (Permission::Allow, _) | (Permission::Ask, ApprovalMode::Yolo) => Gate::Run,
        (Permission::Ask, _) => Gate::NeedsDetails,
    }
}

/// Qwen's decision before the details for a call that `requiresUserInteraction`
/// (`evaluatePermissionFlow`: `ask_user_question` where someone can answer):
/// only a denial stops it; otherwise it is put to the user in every mode,
/// YOLO included, since approving it unasked would answer for the user.
#[must_use]
pub const fn before_details_interactive(permission: Permission) -> Gate {
    match permission {
        Permission::Deny => Gate::Denied,
        Permission::Allow | Permission::Ask => Gate::NeedsDetails,
    }
}

/// Qwen's decision once the details are known: plan mode blocks anything but
/// an information prompt or questions; auto-edit approves edits and
/// information prompts; questions are asked in every mode (`needsConfirmation`
/// names `ask_user_question` as YOLO's exception); everything else asks.
#[must_use]
pub const fn after_details(kind: ConfirmationKind, mode: ApprovalMode) -> Gate {
    match (mode, kind) {
        (_, ConfirmationKind::AskUserQuestion) => Gate::Ask,
        (ApprovalMode::Plan, ConfirmationKind::Info) => Gate::Ask,
        (ApprovalMode::Plan, _) => Gate::PlanBlocked,
        (ApprovalMode::AutoEdit, ConfirmationKind::Edit | ConfirmationKind::Info)
        | (ApprovalMode::Yolo, _) => Gate::Run,
        (ApprovalMode::AutoEdit | ApprovalMode::Default, _) => Gate::Ask,
    }
}

/// What "proceed always" changes: Qwen's `edit` and `write_file` answer it
/// with `setApprovalMode(AUTO_EDIT)` (`edit.ts`, `write-file.ts`
/// `onConfirm`), so every later edit of the session runs without asking;
/// other kinds persist a permission rule for the one command or server,
/// which is not a mode. `None`: the mode stays.
#[must_use]
pub const fn mode_after_proceed_always(kind: ConfirmationKind) -> Option<ApprovalMode> {
    match kind {
        ConfirmationKind::Edit => Some(ApprovalMode::AutoEdit),
        ConfirmationKind::Exec
        | ConfirmationKind::Mcp
        | ConfirmationKind::Info
        | ConfirmationKind::AskUserQuestion => None,
    }
}

/// What plan mode makes of a shell command, by its safety (Qwen's
/// `evaluatePlanModeShellPolicy` and its use in `coreToolScheduler.ts`,
/// `packages/core/src/core/plan-mode-shell-policy.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanShell {
    /// A write: refused before anything is prepared.
    Blocked,
    /// Unknown: put to the user whatever its default permission, and only
    /// a "proceed once" runs it (any other answer cancels).
    AskOnce,
    /// Read-only: its default permission decides, and no plan-mode block
    /// applies (a call that asks is asked).
    AsUsual,
}

/// Plan mode's policy for a shell command of `safety`.
#[must_use]
pub const fn plan_shell(safety: Safety) -> PlanShell {
    match safety {
        Safety::Write => PlanShell::Blocked,
        Safety::Unknown => PlanShell::AskOnce,
        Safety::ReadOnly => PlanShell::AsUsual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODES: [ApprovalMode; 4] = [
        ApprovalMode::Plan,
        ApprovalMode::Default,
        ApprovalMode::AutoEdit,
        ApprovalMode::Yolo,
    ];

    /// The whole flow for a tool with `permission` whose confirmation would
    /// be `kind`, as Qwen's scheduler runs it.
    fn decide(permission: Permission, kind: ConfirmationKind, mode: ApprovalMode) -> Gate {
        match before_details(permission, mode) {
            Gate::NeedsDetails => after_details(kind, mode),
            gate => gate,
        }
    }

    #[test]
    fn read_only_tools_run_in_every_mode() {
        for mode in MODES {
            assert_eq!(
                decide(Permission::Allow, ConfirmationKind::Info, mode),
                Gate::Run,
                "{mode:?}"
            );
        }
    }

    #[test]
    fn an_edit_is_blocked_in_plan_asks_in_default_and_runs_in_auto_edit_and_yolo() {
        let edit = |mode| decide(Permission::Ask, ConfirmationKind::Edit, mode);
        assert_eq!(edit(ApprovalMode::Plan), Gate::PlanBlocked);
        assert_eq!(edit(ApprovalMode::Default), Gate::Ask);
        assert_eq!(edit(ApprovalMode::AutoEdit), Gate::Run);
        assert_eq!(edit(ApprovalMode::Yolo), Gate::Run);
    }

    #[test]
    fn a_command_still_asks_in_auto_edit() {
        let exec = |mode| decide(Permission::Ask, ConfirmationKind::Exec, mode);
        assert_eq!(exec(ApprovalMode::Plan), Gate::PlanBlocked);
        assert_eq!(exec(ApprovalMode::Default), Gate::Ask);
        assert_eq!(exec(ApprovalMode::AutoEdit), Gate::Ask);
        assert_eq!(exec(ApprovalMode::Yolo), Gate::Run);
    }

    #[test]
    fn an_information_prompt_is_never_plan_blocked() {
        let info = |mode| decide(Permission::Ask, ConfirmationKind::Info, mode);
        assert_eq!(info(ApprovalMode::Plan), Gate::Ask);
        assert_eq!(info(ApprovalMode::AutoEdit), Gate::Run);
    }

    #[test]
    fn a_denied_tool_is_refused_even_in_yolo() {
        for mode in MODES {
            assert_eq!(
                decide(Permission::Deny, ConfirmationKind::Edit, mode),
                Gate::Denied
            );
        }
    }

    #[test]
    fn questions_are_asked_in_every_mode_unless_denied() {
        for mode in MODES {
            assert_eq!(
                before_details_interactive(Permission::Allow),
                Gate::NeedsDetails
            );
            assert_eq!(
                after_details(ConfirmationKind::AskUserQuestion, mode),
                Gate::Ask,
                "{mode:?}"
            );
        }
        assert_eq!(before_details_interactive(Permission::Deny), Gate::Denied);
        assert_eq!(
            mode_after_proceed_always(ConfirmationKind::AskUserQuestion),
            None
        );
    }

    #[test]
    fn plan_mode_blocks_a_writing_command_and_asks_once_for_an_unknown_one() {
        assert_eq!(plan_shell(Safety::Write), PlanShell::Blocked);
        assert_eq!(plan_shell(Safety::Unknown), PlanShell::AskOnce);
        assert_eq!(plan_shell(Safety::ReadOnly), PlanShell::AsUsual);
    }

    #[test]
    fn proceed_always_on_an_edit_switches_to_auto_edit_only() {
        assert_eq!(
            mode_after_proceed_always(ConfirmationKind::Edit),
            Some(ApprovalMode::AutoEdit)
        );
        assert_eq!(mode_after_proceed_always(ConfirmationKind::Exec), None);
    }
}
