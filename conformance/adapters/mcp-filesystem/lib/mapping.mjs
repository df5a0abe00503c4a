// toolpass tool calls (Qwen Code's names and arguments) -> calls of
// @modelcontextprotocol/server-filesystem's own tools, and its
// CallToolResult -> a toolpass/1 Outcome. Pure, so it is tested without the
// server.
//
// What maps is mapped; an argument asking for something the server's tool
// cannot do (a read from line 10, replace_all, an ignore list) is refused
// here with invalid_tool_params naming it, rather than dropped, since a
// dropped argument would make the call answer something else than asked.
// Arguments this table does not name are passed under their own names: the
// server's zod schemas strip keys they do not declare, as they would a
// model's.

import { failure, success } from '../../common/outcome.mjs';
import { descriptor } from '../../common/tools.mjs';

/** `value` given and not null (Qwen treats null as omitted). */
const given = (value) => value !== undefined && value !== null;

/**
 * Each toolpass tool this adapter offers: the server tool it becomes, how
 * its arguments map (`map(args, root)` -> the server's arguments, or a
 * string saying what does not map), and the descriptor the model sees.
 */
export const TOOLS = {
  read_file: {
    tool: 'read_text_file',
    descriptor: descriptor(
      'read_file',
      "Reads a text file with the MCP filesystem server's read_text_file: limit lines from the start (its head); offset only 0.",
      ['file_path', 'offset', 'limit'],
      ['file_path'],
    ),
    map({ file_path, offset, limit, pages, ...rest }) {
      // read_text_file reads the whole file, its first N lines (head) or its
      // last N (tail): a range starting past line 0 has no counterpart.
      if (given(offset) && offset !== 0) return `offset ${JSON.stringify(offset)}: read_text_file reads from the first line only (head) or the last lines (tail)`;
      if (given(pages)) return 'pages: the server reads every file as text; it has no PDF page extraction';
      return { ...rest, path: file_path, ...(given(limit) ? { head: limit } : {}) };
    },
  },
  write_file: {
    tool: 'write_file',
    descriptor: descriptor('write_file', "Writes a whole file with the MCP filesystem server's write_file.", ['file_path', 'content'], ['file_path', 'content']),
    map: ({ file_path, ...rest }) => ({ ...rest, path: file_path }),
  },
  edit: {
    tool: 'edit_file',
    descriptor: descriptor(
      'edit',
      "Replaces old_string with new_string with the MCP filesystem server's edit_file (one edit; it replaces the first match).",
      ['file_path', 'old_string', 'new_string'],
      ['file_path', 'old_string', 'new_string'],
    ),
    map({ file_path, old_string, new_string, replace_all, ...rest }) {
      // edit_file's applyFileEdits replaces the first match of each edit.
      if (given(replace_all) && replace_all !== false) return 'replace_all: edit_file replaces the first match of an edit only';
      return { ...rest, path: file_path, edits: [{ oldText: old_string, newText: new_string }] };
    },
  },
  list_directory: {
    tool: 'list_directory',
    descriptor: descriptor('list_directory', "Lists a directory with the MCP filesystem server's list_directory.", ['path'], ['path']),
    map({ path, ignore, file_filtering_options: filtering, ...rest }) {
      if (Array.isArray(ignore) ? ignore.length > 0 : given(ignore)) return 'ignore: list_directory lists every entry; it takes no patterns to leave out';
      // The server reads no ignore files: asking it not to is what it does.
      const respected = Object.entries(filtering ?? {}).filter(([, v]) => v !== false).map(([k]) => k);
      if (respected.length > 0) return `file_filtering_options.${respected.join(', ')}: list_directory reads no ignore files`;
      return { ...rest, path };
    },
  },
  glob: {
    tool: 'search_files',
    descriptor: descriptor(
      'glob',
      "Finds files and directories by glob with the MCP filesystem server's search_files (minimatch on paths relative to path, default the root).",
      ['pattern', 'path'],
      ['pattern'],
    ),
    // search_files needs a path; Qwen's glob defaults to the project root.
    map: ({ pattern, path, ...rest }, root) => ({ ...rest, path: given(path) ? path : root, pattern }),
  },
};

/**
 * The server's {name, arguments} for a toolpass call, `{refused}` (what
 * does not map) or undefined for a tool not offered.
 */
export function toServerCall(name, args, root) {
  const entry = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (!entry) return undefined;
  const mapped = entry.map(args ?? {}, root);
  if (typeof mapped === 'string') return { refused: `${name}: ${mapped}` };
  return { name: entry.tool, arguments: mapped };
}

/**
 * The server's error texts -> canonical codes, first match wins. They are
 * an Error's message as McpServer returns it: the SDK's schema check
 * ("Input validation error"), validatePath's "Access denied - ...", Node's
 * own `ERRNO: ...` messages from fs, applyFileEdits' "Could not find exact
 * match". A code is given only where the meaning is Qwen's; an errno whose
 * meaning depends on the tool is looked up per tool below.
 */
const CODES = [
  [/^MCP error -32602: Input validation error/, 'invalid_tool_params'],
  [/^Access denied - (path|symlink target) outside allowed directories/, 'path_not_in_workspace'],
  [/^Could not find exact match for edit/, 'edit_no_occurrence_found'],
  [/^EACCES:|^EPERM:/, 'permission_denied'],
  [/^ENOSPC:/, 'no_space_left'],
];

/**
 * Node errnos whose meaning depends on the tool: a missing path is a
 * missing file for a read or an edit, but for write_file it is a missing
 * parent directory (Qwen creates it; the server's writeFile does not), and
 * for a listing or a search a missing directory.
 */
const ERRNO_CODES = {
  read_text_file: { ENOENT: 'file_not_found', EISDIR: 'target_is_directory' },
  edit_file: { ENOENT: 'file_not_found', EISDIR: 'target_is_directory' },
  write_file: { ENOENT: 'file_write_failure', EISDIR: 'target_is_directory' },
  list_directory: { ENOENT: 'ls_execution_error', ENOTDIR: 'path_is_not_a_directory' },
  search_files: { ENOENT: 'search_path_not_found', ENOTDIR: 'search_path_not_a_directory' },
};

export function errorCode(tool, message) {
  const code = CODES.find(([pattern]) => pattern.test(message))?.[1];
  if (code) return code;
  const errno = /^(E[A-Z]+):/.exec(message)?.[1];
  return ERRNO_CODES[tool]?.[errno] ?? 'unknown';
}

/** A CallToolResult's text blocks, joined as a plain MCP client joins them. */
export function resultText(result) {
  return (result?.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** The server's CallToolResult for a call of its `tool` -> an Outcome. */
export function toOutcome(tool, result) {
  const text = resultText(result);
  if (result?.isError) return failure(errorCode(tool, text), text);
  return success(text);
}

/** A call the adapter refused because an argument has no counterpart. */
export function refusal(message) {
  return failure('invalid_tool_params', message);
}

/** A call the client could not complete (the server died, a JSON-RPC error). */
export function clientFailure(error) {
  return failure('unknown', `the MCP filesystem server did not answer: ${error.message}`);
}
