// Qwen Code's tool response -> a toolpass/1 Outcome (an MCP CallToolResult
// with `_meta.toolpass`). Pure, so it is tested without the bundle.

/** The text the model sees: the functionResponse's output or error. */
function modelText(response) {
  const part = response?.responseParts?.[0]?.functionResponse?.response ?? {};
  if (typeof part.output === 'string') return part.output;
  if (typeof part.error === 'string') return part.error;
  if (typeof part.content === 'string') return part.content;
  return '';
}

/**
 * `observed` carries what the adapter saw besides the response:
 * `resultFilePaths`, the files the tool's result names.
 */
export function toOutcome(response, observed = {}) {
  const llmContent = modelText(response);
  const failed = Boolean(response?.error) || Boolean(response?.errorType);
  const toolpass = { status: failed ? 'error' : 'success', llmContent };
  if (failed) {
    toolpass.error = {
      code: response.errorType ?? 'unknown',
      message: response.error?.message ?? llmContent,
    };
  }
  if (!failed && Array.isArray(observed.resultFilePaths)) {
    toolpass.resultFilePaths = observed.resultFilePaths;
  }
  const display = toDisplay(response?.resultDisplay);
  if (display) toolpass.display = display;
  // Qwen can spill more than one file; toolpass/1 names one, the first.
  const spilled = response?.persistedOutputFiles?.[0];
  if (typeof spilled === 'string') toolpass.persistedOutputPath = spilled;
  return {
    content: llmContent === '' ? [] : [{ type: 'text', text: llmContent }],
    isError: failed,
    _meta: { toolpass },
  };
}

/**
 * Qwen's `resultDisplay` -> a toolpass ResultDisplay: a string is text; a
 * `FileDiff` ({fileDiff, fileName, filePath, originalContent, newContent,
 * diffStat}) is a diff; a todo list is todos. Anything else has no toolpass
 * form and is left out rather than guessed.
 */
export function toDisplay(display) {
  if (typeof display === 'string') return display === '' ? undefined : { type: 'text', text: display };
  if (display === null || typeof display !== 'object') return undefined;
  if (typeof display.fileDiff === 'string' && typeof display.newContent === 'string') {
    const diff = {
      type: 'diff',
      path: display.filePath ?? display.fileName,
      new: display.newContent,
      stat: diffStat(display),
      diff: display.fileDiff,
    };
    if (typeof display.originalContent === 'string') diff.old = display.originalContent;
    return diff;
  }
  if (Array.isArray(display.todos)) {
    return { type: 'todos', todos: display.todos.map(({ id, content, status }) => ({ id, content, status })) };
  }
  return undefined;
}

/** Qwen's own model-side stat when it gives one, else counted off the diff. */
function diffStat(display) {
  const stat = display.diffStat;
  if (stat && typeof stat.model_added_lines === 'number') {
    return { addedLines: stat.model_added_lines, removedLines: stat.model_removed_lines ?? 0 };
  }
  const lines = display.fileDiff.split('\n');
  const counted = (sign, header) => lines.filter((l) => l.startsWith(sign) && !l.startsWith(header)).length;
  return { addedLines: counted('+', '+++'), removedLines: counted('-', '---') };
}

/** A Qwen function declaration -> an MCP tool descriptor. */
export function toDescriptor(declaration, tool) {
  const descriptor = {
    name: declaration.name,
    description: declaration.description ?? '',
    inputSchema: declaration.parametersJsonSchema ?? declaration.parameters ?? { type: 'object' },
  };
  if (tool?.kind) {
    descriptor._meta = {
      toolpass: { kind: tool.kind, deferred: Boolean(tool.shouldDefer), alwaysLoad: Boolean(tool.alwaysLoad) },
    };
  }
  return descriptor;
}
