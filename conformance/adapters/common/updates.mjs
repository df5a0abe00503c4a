// The live output of a running call in the Gemini CLI family (a tool's
// `updateOutput`: Qwen's scheduler hands it to `outputUpdateHandler(callId,
// chunk)`, Gemini's keeps it as the call's `liveOutput`) -> MCP's
// `notifications/progress`, as SPEC.md `updates.progress` asks: under the
// call's `progressToken`, `progress` counting up, `message` the output so
// far. Pure, so it is tested without a peer.

/**
 * The text of one update, or undefined for an update that carries none.
 * On pipes a shell sends the output so far as a string; on the pty the
 * rendered screen as lines of styled tokens (an `AnsiOutput`; Qwen wraps
 * it as `{ansiOutput, totalLines, totalBytes}`), which reads as its
 * tokens' text, each line without the terminal's padding and without the
 * blank rows under the output (as Qwen's final pty output is). An MCP
 * server's progress (`{type: "mcp_tool_progress", progress, total?,
 * message?}`, what Qwen's DiscoveredMCPTool passes to `updateOutput`) reads
 * as Qwen's UI shows it (`useResultDisplayRenderer`): `◌ [progress/total]
 * message`, `Progress: <progress>` when the server sent no message. Qwen's
 * `shell_progress` heartbeat (elapsed time, no output) has no text.
 */
export function updateText(chunk) {
  if (typeof chunk === 'string') return chunk;
  if (chunk?.type === 'mcp_tool_progress') {
    const total = chunk.total != null ? `/${chunk.total}` : '';
    return `\u25CC [${chunk.progress}${total}] ${chunk.message ?? `Progress: ${chunk.progress}`}`;
  }
  const screen = Array.isArray(chunk) ? chunk : chunk?.ansiOutput;
  if (!Array.isArray(screen)) return undefined;
  const lines = screen.map((line) => (Array.isArray(line) ? line.map((token) => token?.text ?? '').join('') : '').trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/**
 * A sender of one call's updates, or undefined when the call carried no
 * `progressToken` (then it gets none). `write(method, params)` sends a
 * notification.
 */
export function progressSender(token, write) {
  if (token === undefined || token === null) return undefined;
  let progress = 0;
  return (chunk) => {
    const message = updateText(chunk);
    if (message === undefined) return;
    progress += 1;
    write('notifications/progress', { progressToken: token, progress, message });
  };
}
