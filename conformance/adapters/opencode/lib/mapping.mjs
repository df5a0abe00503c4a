// toolpass tool calls (Qwen Code's names and arguments) -> opencode tool
// calls, and what `opencode debug agent build --tool` printed -> a
// toolpass/1 Outcome. Pure, so it is tested without the binary.

import { failure, processFailure, success } from '../../common/outcome.mjs';
import { withoutSandboxWarnings } from '../../common/peers.mjs';
import { descriptor, editDescriptor } from '../../common/tools.mjs';

/**
 * Each toolpass tool this adapter offers: opencode's tool id, the toolpass
 * arguments renamed to opencode's, and the descriptor the model sees.
 * Arguments not named here are passed under their own names; opencode's
 * own schema check decides what they are worth.
 */
export const TOOLS = {
  read_file: {
    tool: 'read',
    rename: { file_path: 'filePath' },
    // toolpass's offset is a 0-based line, opencode's the 1-based line to start at.
    convert: { offset: (v) => (typeof v === 'number' ? v + 1 : v) },
    descriptor: descriptor('read_file', "Reads a file with opencode's read tool.", ['file_path', 'offset', 'limit'], ['file_path']),
  },
  edit: {
    tool: 'edit',
    rename: { file_path: 'filePath', old_string: 'oldString', new_string: 'newString', replace_all: 'replaceAll' },
    descriptor: editDescriptor("Replaces text in a file with opencode's edit tool."),
  },
  write_file: {
    tool: 'write',
    rename: { file_path: 'filePath' },
    descriptor: descriptor('write_file', "Writes a whole file with opencode's write tool.", ['file_path', 'content'], ['file_path', 'content']),
  },
  grep_search: {
    tool: 'grep',
    rename: { glob: 'include' },
    descriptor: descriptor('grep_search', "Searches file contents with opencode's grep tool (ripgrep).", ['pattern', 'path', 'glob'], ['pattern']),
  },
  glob: {
    tool: 'glob',
    rename: {},
    descriptor: descriptor('glob', "Finds files by name with opencode's glob tool (ripgrep).", ['pattern', 'path'], ['pattern']),
  },
  // opencode 1.18.33 has no listing tool of its own; its read tool lists a directory.
  list_directory: {
    tool: 'read',
    rename: { path: 'filePath' },
    descriptor: descriptor('list_directory', "Lists a directory with opencode's read tool.", ['path'], ['path']),
  },
  run_shell_command: {
    tool: 'bash',
    rename: { directory: 'workdir' },
    descriptor: descriptor('run_shell_command', "Runs a command with opencode's bash tool.", ['command', 'description', 'directory'], ['command']),
  },
};

/** opencode's {tool, params} for a toolpass call, or undefined for a tool not offered. */
export function toOpencode(name, args = {}) {
  const entry = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (!entry) return undefined;
  const params = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    const convert = entry.convert?.[key];
    params[entry.rename[key] ?? key] = convert ? convert(value) : value;
  }
  return { tool: entry.tool, params };
}

/** opencode's error texts -> canonical codes, first match wins. */
const CODES = [
  [/was called with invalid arguments|^filePath is required/, 'invalid_tool_params'],
  [/^File not found:|^File [\s\S]* not found$/, 'file_not_found'],
  [/Could not find oldString/, 'edit_no_occurrence_found'],
  [/Found multiple matches for oldString/, 'edit_expected_occurrence_mismatch'],
  [/oldString and newString are identical/, 'edit_no_change'],
  [/oldString cannot be empty when editing an existing file/, 'attempt_to_create_existing_file'],
  [/Path is a directory/, 'target_is_directory'],
  [/You must read (the )?file .* before/i, 'edit_requires_prior_read'],
  [/has been modified since it was last read/i, 'file_changed_since_read'],
  // The adapter's config denies only external_directory, so a rule's refusal is a path outside the root.
  [/has specified a rule which prevents you from using this specific tool call/, 'path_not_in_workspace'],
  [/EACCES|[Pp]ermission denied/, 'permission_denied'],
  [/ENOSPC/, 'no_space_left'],
];

/** Where no text matches, the tool's own failure code. */
const TOOL_CODES = { grep: 'grep_execution_error', glob: 'glob_execution_error', bash: 'shell_execute_error' };

export function errorCode(tool, message) {
  return CODES.find(([pattern]) => pattern.test(message))?.[1] ?? TOOL_CODES[tool] ?? 'execution_failed';
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * opencode's error report on stderr, without colours and without the
 * "Error: Unexpected error" banner its CLI puts before every tool error.
 */
export function errorMessage(stderr) {
  const plain = withoutSandboxWarnings(stderr.replace(ANSI, ''));
  return plain.replace(/^Error: Unexpected error\s*/, '').trim() || plain;
}

/**
 * `result`: runProcess's {code, signal, stdout, stderr, timedOut,
 * spawnError} for a call of opencode's `tool`. Success prints
 * {tool, input, result: {title, output, metadata}}; the model reads
 * `output`. Failure exits non-zero with the tool's error on stderr.
 */
export function toOutcome(tool, result) {
  const unfinished = processFailure(result, `opencode's ${tool}`);
  if (unfinished) return unfinished;
  if (result.code !== 0) {
    const message = errorMessage(result.stderr) || `opencode exited with ${result.code ?? result.signal}`;
    return failure(errorCode(tool, message), message);
  }
  let printed;
  try {
    printed = JSON.parse(result.stdout);
  } catch {
    return failure('unhandled_exception', `opencode printed no JSON result: ${result.stdout.slice(0, 500)}`);
  }
  const output = printed?.result?.output;
  return success(typeof output === 'string' ? output : '');
}
