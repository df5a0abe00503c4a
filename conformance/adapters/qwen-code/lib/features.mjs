// What this adapter advertises in `initialize`'s toolpass features, from
// what Qwen really does here. Pure, so it is tested without the bundle.

/**
 * Always: prior reads are Qwen's own, spilled output is Qwen's
 * `persistedOutputFiles`, confirmations are its scheduler's
 * `awaiting_approval`, a background shell's end is the notification its
 * BackgroundShellRegistry sends the model, a cancellation aborts the call's
 * AbortSignal, and a shell's `updateOutput` becomes progress.
 */
const ALWAYS = ['sessions', 'prior_read', 'spill_files', 'confirm', 'cancel', 'updates', 'notices', 'background_shell'];

/**
 * The features, with `shell_pty` exactly when Qwen's foreground commands
 * run on a pty here: its Config chose the pty (`shouldUseNodePtyShell`,
 * which defaults to `shouldDefaultToNodePty()`) and its own `loadPty()`
 * found a node-pty (`impl` not null). Otherwise Qwen runs them on pipes.
 */
export function adapterFeatures({ ptyLoaded, ptyChosen }) {
  return ptyLoaded && ptyChosen ? [...ALWAYS, 'shell_pty'] : [...ALWAYS];
}
