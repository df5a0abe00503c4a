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
  return {
    content: llmContent === '' ? [] : [{ type: 'text', text: llmContent }],
    isError: failed,
    _meta: { toolpass },
  };
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
