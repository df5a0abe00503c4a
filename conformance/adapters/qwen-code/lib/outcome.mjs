// Qwen Code's tool response -> a toolpass/1 Outcome (an MCP CallToolResult
// with `_meta.toolpass`). Pure, so it is tested without the bundle.

import { canonicalCode, commonDisplay, envelope, modelText } from '../../common/outcome.mjs';

/**
 * `observed` carries what the adapter saw besides the response: `status`,
 * the call's final state in Qwen's scheduler (a call the user declined is
 * `cancelled`, its response an error text with no errorType), and
 * `resultFilePaths`, the files the tool's result names.
 */
export function toOutcome(response, observed = {}) {
  const llmContent = modelText(response);
  if (observed.status === 'cancelled') {
    // Qwen's scheduler keeps a declined edit's FileDiff as the cancelled
    // call's resultDisplay (setStatusInternal, `cancelled`), and a running
    // shell's live output when it is cancelled while it runs.
    const cancelled = { status: 'cancelled', llmContent };
    const display = toDisplay(response?.resultDisplay);
    if (display) cancelled.display = display;
    return envelope(cancelled);
  }
  const failed = Boolean(response?.error) || Boolean(response?.errorType);
  const toolpass = { status: failed ? 'error' : 'success', llmContent };
  if (failed) {
    toolpass.error = {
      // Qwen 0.24.4's ToolErrorType values are the canonical list; a type a
      // later Qwen adds is `unknown` until the list has it.
      code: canonicalCode(response.errorType),
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
  return envelope(toolpass);
}

/**
 * Qwen's `resultDisplay` -> a toolpass ResultDisplay: text and `FileDiff`
 * as common/outcome.mjs maps them; a todo list is todos. Anything else has
 * no toolpass form and is left out rather than guessed.
 */
export function toDisplay(display) {
  const common = commonDisplay(display);
  if (common) return common;
  if (Array.isArray(display?.todos)) {
    return { type: 'todos', todos: display.todos.map(toTodo) };
  }
  return undefined;
}

/**
 * One of Qwen's todo items as toolpass shows it: its dependencies kept
 * (`blockedBy`, left out when none), Qwen's other members (a plan id, the
 * changes) having no toolpass form.
 */
function toTodo({ id, content, status, blockedBy }) {
  const todo = { id, content, status };
  if (Array.isArray(blockedBy) && blockedBy.length > 0) todo.blockedBy = blockedBy;
  return todo;
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
