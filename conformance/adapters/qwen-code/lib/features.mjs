// What this adapter advertises in `initialize`'s toolpass features, from
// what Qwen really does here. Pure, so it is tested without the bundle.

/**
 * Always: deferred tools are Qwen's own registry and `tool_search`, in the
 * one model 0.24.4 ships, the proxy (`tool_call`); `mcp` is its
 * McpClientManager on the session's `mcpServers`; the collaboration tools
 * are Qwen's (todo_write, ask_user_question, task_create, send_message) and
 * `classifierInput` each parked call's tool's `toAutoClassifierInput`
 * (lib/classifier.mjs); `fault:mcp.disconnect` closes the server's
 * transport before the call reaches Qwen and `fault:call.rendezvous` holds
 * the next calls to start at a barrier (lib/faults.mjs); `batch` is one
 * CoreToolScheduler per batch (lib/batch.mjs). Prior reads are Qwen's
 * own, spilled output is Qwen's `persistedOutputFiles`, confirmations are
 * its scheduler's `awaiting_approval`, a background shell's end is the
 * notification its BackgroundShellRegistry sends the model, a cancellation
 * aborts the call's AbortSignal, and a shell's `updateOutput` becomes
 * progress.
 */
const ALWAYS = [
  'sessions',
  'prior_read',
  'spill_files',
  'confirm',
  'cancel',
  'updates',
  'notices',
  'background_shell',
  'deferred_tools',
  'deferred_tools:proxy',
  'mcp',
  'collab_tools',
  'classifier_input',
  'fault:mcp.disconnect',
  'fault:call.rendezvous',
  'batch',
];

/**
 * The features, with `shell_pty` exactly when Qwen's foreground commands
 * run on a pty here: its Config chose the pty (`shouldUseNodePtyShell`,
 * which defaults to `shouldDefaultToNodePty()`) and its own `loadPty()`
 * found a node-pty (`impl` not null). Otherwise Qwen runs them on pipes.
 */
export function adapterFeatures({ ptyLoaded, ptyChosen }) {
  return ptyLoaded && ptyChosen ? [...ALWAYS, 'shell_pty'] : [...ALWAYS];
}
