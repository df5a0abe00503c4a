// The name/argument mapping, the Outcome mapping and the binary choice,
// without opencode installed.

import assert from 'node:assert/strict';
import test from 'node:test';

import { candidates } from '../lib/binary.mjs';
import { errorCode, errorMessage, TOOLS, toOpencode, toOutcome } from '../lib/mapping.mjs';

test('toolpass names and arguments become opencode ids and camelCase arguments', () => {
  assert.deepEqual(toOpencode('read_file', { file_path: '/r/a', offset: 0, limit: 2 }), {
    tool: 'read',
    params: { filePath: '/r/a', offset: 1, limit: 2 },
  });
  assert.deepEqual(toOpencode('edit', { file_path: '/r/a', old_string: 'x', new_string: 'y', replace_all: true }), {
    tool: 'edit',
    params: { filePath: '/r/a', oldString: 'x', newString: 'y', replaceAll: true },
  });
  assert.deepEqual(toOpencode('write_file', { file_path: '/r/a', content: 'c' }), { tool: 'write', params: { filePath: '/r/a', content: 'c' } });
  assert.deepEqual(toOpencode('grep_search', { pattern: 'p', path: '/r', glob: '*.ts' }), {
    tool: 'grep',
    params: { pattern: 'p', path: '/r', include: '*.ts' },
  });
  assert.deepEqual(toOpencode('glob', { pattern: '*.txt' }), { tool: 'glob', params: { pattern: '*.txt' } });
  assert.deepEqual(toOpencode('list_directory', { path: '/r' }), { tool: 'read', params: { filePath: '/r' } });
  assert.deepEqual(toOpencode('run_shell_command', { command: 'ls', directory: '/r' }), {
    tool: 'bash',
    params: { command: 'ls', workdir: '/r' },
  });
});

test('unmapped arguments and odd types pass through for opencode to judge', () => {
  assert.deepEqual(toOpencode('read_file', { file_path: '/a', offset: '3', pages: 1 }).params, { filePath: '/a', offset: '3', pages: 1 });
  assert.equal(toOpencode('todo_write', {}), undefined);
  assert.equal(toOpencode('constructor', {}), undefined);
  assert.deepEqual(Object.keys(TOOLS).sort(), ['edit', 'glob', 'grep_search', 'list_directory', 'read_file', 'run_shell_command', 'write_file']);
  assert.ok(Object.values(TOOLS).every((t) => t.descriptor.inputSchema.required.length > 0));
});

test("a successful run's output is what the model reads", () => {
  const printed = JSON.stringify({ tool: 'write', input: {}, result: { title: 't', output: 'Wrote file successfully.', metadata: {} } });
  const outcome = toOutcome('write', { code: 0, stdout: printed, stderr: '' });
  assert.deepEqual(outcome._meta.toolpass, { status: 'success', llmContent: 'Wrote file successfully.' });
  assert.equal(toOutcome('write', { code: 0, stdout: 'not json', stderr: '' })._meta.toolpass.error.code, 'unhandled_exception');
});

test('a failed run is an error with the message off stderr and a canonical code', () => {
  const stderr = '\x1b[91m\x1b[1mError: \x1b[0mUnexpected error\n\nCould not find oldString in the file. It must match exactly.\n';
  assert.equal(errorMessage(stderr), 'Could not find oldString in the file. It must match exactly.');
  const outcome = toOutcome('edit', { code: 1, stdout: '', stderr });
  assert.equal(outcome.isError, true);
  assert.deepEqual(outcome._meta.toolpass.error, {
    code: 'edit_no_occurrence_found',
    message: 'Could not find oldString in the file. It must match exactly.',
  });
  assert.equal(toOutcome('read', { code: 1, stdout: '', stderr: '' })._meta.toolpass.error.message, 'opencode exited with 1');
  assert.equal(toOutcome('bash', { timedOut: true })._meta.toolpass.error.code, 'execution_timeout');
});

test("opencode's error texts map to canonical codes, else the tool's own failure", () => {
  const cases = [
    ['read', 'The read tool was called with invalid arguments: SchemaError(Missing key', 'invalid_tool_params'],
    ['read', 'File not found: /r/nope.txt', 'file_not_found'],
    ['edit', 'File /r/zz.txt not found', 'file_not_found'],
    ['edit', 'File /r/  /r/a.txt \n not found', 'file_not_found'],
    ['edit', 'filePath is required', 'invalid_tool_params'],
    ['edit', 'Found multiple matches for oldString. Provide more surrounding context', 'edit_expected_occurrence_mismatch'],
    ['edit', 'No changes to apply: oldString and newString are identical.', 'edit_no_change'],
    ['edit', 'oldString cannot be empty when editing an existing file. Provide', 'attempt_to_create_existing_file'],
    ['edit', 'Path is a directory, not a file: /r/d', 'target_is_directory'],
    ['glob', 'ripgrep execution failed', 'glob_execution_error'],
    ['read', 'The user has specified a rule which prevents you from using this specific tool call. Here are', 'path_not_in_workspace'],
    ['grep', 'ripgrep execution failed', 'grep_execution_error'],
    ['write', 'something else', 'execution_failed'],
  ];
  for (const [tool, message, code] of cases) assert.equal(errorCode(tool, message), code, message);
});

test('the platform package is chosen as opencode-ai\'s postinstall chooses it', () => {
  assert.deepEqual(candidates('linux', 'x64', true), ['opencode-linux-x64', 'opencode-linux-x64-baseline']);
  assert.deepEqual(candidates('linux', 'x64', false), ['opencode-linux-x64-baseline', 'opencode-linux-x64']);
  assert.deepEqual(candidates('darwin', 'arm64', true), ['opencode-darwin-arm64']);
  assert.deepEqual(candidates('win32', 'x64', true), ['opencode-windows-x64', 'opencode-windows-x64-baseline']);
});
