// toolpass's tool names and arguments (Qwen Code's, which the scenarios
// call) onto Gemini CLI's, and Gemini's declarations and error types back.
// Pure, so it is tested without the peer package.

import { RpcError } from '../../common/framing.mjs';
import { mcpServerSettings } from '../../common/mcp.mjs';
import { canonicalCode } from '../../common/outcome.mjs';

/**
 * The `instruction` Gemini's `replace` requires. It only feeds Gemini's
 * LLM edit fixer, which is off (`disableLLMCorrection`, Gemini's default)
 * and, with no model, could not run anyway.
 */
export const EDIT_INSTRUCTION =
  'Replace old_string with new_string exactly as given (a conformance test call; no model involved).';

/**
 * toolpass tool -> Gemini tool. `renames` are arguments with the same
 * meaning under another name; arguments not listed pass through under
 * their own name, for Gemini to use or ignore as it would a model's.
 */
export const TOOLS = {
  read_file: { gemini: 'read_file', renames: {}, lines: true },
  write_file: { gemini: 'write_file', renames: {} },
  edit: { gemini: 'replace', renames: { replace_all: 'allow_multiple' }, instruction: true },
  grep_search: {
    gemini: 'grep_search',
    renames: { path: 'dir_path', glob: 'include_pattern', limit: 'total_max_matches' },
  },
  glob: { gemini: 'glob', renames: { path: 'dir_path', respect_qwen_ignore: 'respect_gemini_ignore' } },
  list_directory: { gemini: 'list_directory', renames: { path: 'dir_path' }, filtering: true },
  run_shell_command: { gemini: 'run_shell_command', renames: { directory: 'dir_path' } },
};

/** The Gemini tools the session registers (Config `coreTools`). */
export const GEMINI_TOOLS = Object.values(TOOLS).map((t) => t.gemini);

/**
 * A toolpass call -> Gemini's {name, args}. An unmapped name goes to Gemini
 * unchanged, so Gemini answers it as it would a model (tool not found).
 */
export function toGeminiCall(name, args = {}) {
  const tool = TOOLS[name];
  if (!tool) return { name, args };
  const out = {};
  for (const [key, value] of Object.entries(args)) {
    if (tool.lines && (key === 'offset' || key === 'limit')) continue;
    if (tool.filtering && key === 'file_filtering_options') {
      out[key] = renameKeys(value, { respect_qwen_ignore: 'respect_gemini_ignore' });
      continue;
    }
    out[tool.renames[key] ?? key] = value;
  }
  if (tool.lines) Object.assign(out, toLineRange(args.offset, args.limit));
  if (tool.instruction && !('instruction' in args)) out.instruction = EDIT_INSTRUCTION;
  return { name: tool.gemini, args: out };
}

/**
 * Qwen's 0-based `offset` and line count `limit` -> Gemini's 1-based
 * inclusive `start_line` / `end_line`. null is omitted, as Qwen reads it;
 * other non-numbers pass through under Gemini's names for Gemini's own
 * validation to judge.
 */
export function toLineRange(offset, limit) {
  const range = {};
  const given = (v) => v !== undefined && v !== null;
  const numeric = (v) => typeof v === 'number' && Number.isFinite(v);
  if (given(offset)) range.start_line = numeric(offset) ? offset + 1 : offset;
  if (given(limit)) {
    const from = numeric(offset) ? offset : 0;
    range.end_line = numeric(limit) ? from + limit : limit;
  }
  return range;
}

function renameKeys(value, renames) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [renames[k] ?? k, v]));
}

/**
 * A Gemini function declaration -> the toolpass tool descriptor: the
 * toolpass name; Gemini's schema and descriptions with renamed properties
 * under their toolpass names; `start_line`/`end_line` given back as
 * `offset`/`limit`; `instruction` dropped (the adapter supplies it).
 * A tool of an MCP server (`mcp`) is declared as Gemini declares it;
 * undefined for any other Gemini tool no toolpass name maps to.
 */
export function toDescriptor(declaration, { mcp = false } = {}) {
  const entry = Object.entries(TOOLS).find(([, t]) => t.gemini === declaration.name);
  if (!entry) return mcp ? asDeclared(declaration) : undefined;
  const [name, tool] = entry;
  const schema = declaration.parametersJsonSchema ?? declaration.parameters ?? { type: 'object' };
  const back = Object.fromEntries(Object.entries(tool.renames).map(([ours, theirs]) => [theirs, ours]));
  const properties = {};
  for (const [key, value] of Object.entries(schema.properties ?? {})) {
    if (tool.instruction && key === 'instruction') continue;
    if (tool.lines && key === 'start_line') {
      properties.offset = { type: 'integer', minimum: 0, description: `0-based line to start at (Gemini's start_line - 1). ${value.description ?? ''}`.trim() };
      continue;
    }
    if (tool.lines && key === 'end_line') {
      properties.limit = { type: 'integer', minimum: 1, description: "Number of lines to read (Gemini's end_line = offset + limit)." };
      continue;
    }
    properties[back[key] ?? key] = value;
  }
  const required = (schema.required ?? [])
    .filter((k) => !(tool.instruction && k === 'instruction'))
    .map((k) => back[k] ?? k);
  return {
    name,
    description: declaration.description ?? '',
    inputSchema: { ...schema, properties, required },
  };
}

/**
 * A tool Gemini's MCP client discovered, declared as Gemini declares it:
 * its own name (`mcp_<server>_<tool>`, Gemini's `generateValidName`), the
 * server's description and schema. Nothing is renamed: toolpass's
 * `mcp__<server>__<tool>` is a naming rule it judges, not an alias.
 */
function asDeclared(declaration) {
  return {
    name: declaration.name,
    description: declaration.description ?? '',
    inputSchema: declaration.parametersJsonSchema ?? declaration.parameters ?? { type: 'object' },
  };
}

/**
 * Gemini's `ToolErrorType` -> toolpass's canonical code. Gemini's values
 * are the canonical strings already (both descend from Gemini CLI's
 * tool-error.ts), except Gemini's own, mapped below onto the code for the
 * same failure; a type neither knows is `unknown`, since the wire allows
 * only canonical codes.
 */
export const ERROR_CODES = {
  // A policy rule, a hook or the sandbox refused the call.
  policy_violation: 'execution_denied',
  stop_execution: 'execution_denied',
  sandbox_expansion_required: 'execution_denied',
  web_search_failed: 'web_search_backend_failed',
  mcp_resource_not_found: 'mcp_tool_error',
  // read_many_files' file search failed: Qwen has no such tool or code.
  read_many_files_search_error: 'execution_failed',
};

export function toErrorCode(errorType) {
  return ERROR_CODES[errorType] ?? canonicalCode(errorType);
}

/** toolpass's approvalMode values -> Gemini's ApprovalMode. */
export const APPROVAL_MODES = { plan: 'plan', default: 'default', 'auto-edit': 'autoEdit', yolo: 'yolo' };

/**
 * The session config -> Gemini Config params. `truncateToolOutputThreshold`
 * is a Gemini Config param of the same name and meaning (characters);
 * `approvalMode` is renamed value by value; `mcpServers` are Gemini's
 * `mcpServers` settings (common/mcp.mjs: the same members, `cwd` resolved
 * against the session `root`). Others are refused upstream.
 */
export const MAPPABLE_CONFIG = ['truncateToolOutputThreshold', 'approvalMode', 'mcpServers'];

export function toConfigParams(picked, root) {
  const params = {};
  if ('truncateToolOutputThreshold' in picked) params.truncateToolOutputThreshold = picked.truncateToolOutputThreshold;
  const servers = mcpServerSettings(picked.mcpServers, root);
  if (servers !== undefined && Object.keys(servers).length > 0) params.mcpServers = servers;
  if ('approvalMode' in picked) {
    const mode = APPROVAL_MODES[picked.approvalMode];
    if (!mode) throw new RpcError(-32602, `approvalMode ${picked.approvalMode} has no Gemini counterpart`);
    params.approvalMode = mode;
  }
  return params;
}
