// toolpass/1 Outcomes (MCP CallToolResult + `_meta.toolpass`) for adapters
// that build them from a peer's text rather than from a structured result.

/** An Outcome; `llmContent` becomes the one text block (none when empty). */
export function outcome({ status, llmContent = '', error, display, resultFilePaths, persistedOutputPath }) {
  const toolpass = { status, llmContent };
  if (error) toolpass.error = error;
  if (display) toolpass.display = display;
  if (Array.isArray(resultFilePaths) && resultFilePaths.length > 0) toolpass.resultFilePaths = resultFilePaths;
  if (typeof persistedOutputPath === 'string') toolpass.persistedOutputPath = persistedOutputPath;
  return {
    content: llmContent === '' ? [] : [{ type: 'text', text: llmContent }],
    isError: status === 'error',
    _meta: { toolpass },
  };
}

/** A successful call: the text the model sees, and any other members. */
export function success(llmContent, extra = {}) {
  return outcome({ ...extra, status: 'success', llmContent });
}

/** A failed call: a canonical (or the peer's own) code and the peer's message. */
export function failure(code, message, llmContent = message) {
  return outcome({ status: 'error', llmContent, error: { code, message } });
}

/** A call to a tool the adapter does not offer, as the reference answers it. */
export function toolNotRegistered(name, offered) {
  const message = `Tool "${name}" not found in registry. Tools must use the exact names that are registered: ${offered.join(', ')}.`;
  return failure('tool_not_registered', message);
}

/**
 * The failure for a peer program that could not run or did not finish
 * (runProcess's `spawnError` / `timedOut`), or undefined when it ran.
 */
export function processFailure(result, program) {
  if (result.spawnError) return failure('unhandled_exception', `could not run ${program}: ${result.spawnError.message}`);
  if (result.timedOut) return failure('execution_timeout', `${program} did not finish in time`);
  return undefined;
}
