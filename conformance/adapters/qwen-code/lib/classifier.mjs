// `classifierInput`: what Qwen's auto-mode classifier would be shown of a
// call parked at a confirmation. The projection is the tool's own
// `toAutoClassifierInput` (Qwen's, called on its registered tool); the
// rules around it are those of Qwen 0.24.4's `projectFunctionArgs`
// (`packages/core/src/permissions/classifier-transcript.ts`), which the
// bundle does not export. Pure over the registry passed in, so it is tested
// without the bundle.

/** Qwen's prefix of a discovered MCP tool's name. */
const MCP_PREFIX = 'mcp__';

/**
 * The object the classifier would be shown of `name(args)`: the tool's
 * projection when it is an object; `{}` when the tool forwards nothing
 * (the base class's `''`, fail-closed); for a tool that gives no projection
 * or throws, `{}` for an MCP tool and the raw arguments for any other, as
 * `projectFunctionArgs` falls back. `tool_call` projects its target itself
 * (`ToolCallTool.toAutoClassifierInput`).
 */
export function classifierInput(registry, name, args) {
  const raw = args && typeof args === 'object' ? args : {};
  const tool = registry.getTool(name);
  let projected;
  if (tool) {
    try {
      projected = tool.toAutoClassifierInput(raw);
    } catch {
      projected = undefined;
    }
  }
  if (projected === '') return {};
  if (projected && typeof projected === 'object') return withoutUndefined(projected);
  return name.startsWith(MCP_PREFIX) ? {} : raw;
}

/**
 * The projection as the classifier's prompt has it, `JSON.stringify`'d:
 * members whose value is undefined (a `send_message` without `to`) are
 * not there.
 */
function withoutUndefined(projected) {
  return JSON.parse(JSON.stringify(projected));
}
