// The name and argument mapping and the Outcome mapping, without the
// server installed.

import assert from 'node:assert/strict';
import test from 'node:test';

import { CANONICAL_CODES } from '../../common/outcome.mjs';
import { errorCode, TOOLS, toOutcome, toServerCall } from '../lib/mapping.mjs';

test('toolpass names and arguments become the server tools and theirs', () => {
  assert.deepEqual(toServerCall('read_file', { file_path: '/r/a' }, '/r'), { name: 'read_text_file', arguments: { path: '/r/a' } });
  assert.deepEqual(toServerCall('read_file', { file_path: '/r/a', offset: 0, limit: 2 }, '/r'), {
    name: 'read_text_file',
    arguments: { path: '/r/a', head: 2 },
  });
  assert.deepEqual(toServerCall('write_file', { file_path: '/r/a', content: 'c' }, '/r'), {
    name: 'write_file',
    arguments: { path: '/r/a', content: 'c' },
  });
  assert.deepEqual(toServerCall('edit', { file_path: '/r/a', old_string: 'x', new_string: 'y', replace_all: false }, '/r'), {
    name: 'edit_file',
    arguments: { path: '/r/a', edits: [{ oldText: 'x', newText: 'y' }] },
  });
  assert.deepEqual(toServerCall('list_directory', { path: '/r', file_filtering_options: { respect_git_ignore: false } }, '/r'), {
    name: 'list_directory',
    arguments: { path: '/r' },
  });
  assert.deepEqual(toServerCall('glob', { pattern: '**/*.ts' }, '/r'), { name: 'search_files', arguments: { path: '/r', pattern: '**/*.ts' } });
  assert.deepEqual(toServerCall('glob', { pattern: '*', path: '/r/s' }, '/r').arguments, { path: '/r/s', pattern: '*' });
});

test('null is omitted; other arguments and odd types pass through for the server to judge', () => {
  assert.deepEqual(toServerCall('read_file', { file_path: '/a', offset: null, limit: null, pages: null }, '/r').arguments, { path: '/a' });
  assert.deepEqual(toServerCall('read_file', { file_path: '/a', limit: '3', extra: 1 }, '/r').arguments, { path: '/a', head: '3', extra: 1 });
  // A missing required argument stays missing: the server's schema refuses it.
  assert.deepEqual(toServerCall('read_file', {}, '/r').arguments, { path: undefined });
  assert.equal(toServerCall('grep_search', { pattern: 'x' }, '/r'), undefined);
  assert.equal(toServerCall('constructor', {}, '/r'), undefined);
  assert.deepEqual(Object.keys(TOOLS).sort(), ['edit', 'glob', 'list_directory', 'read_file', 'write_file']);
});

test('an argument asking for what the server cannot do is refused, naming it', () => {
  const refused = (name, args) => toServerCall(name, args, '/r').refused;
  assert.match(refused('read_file', { file_path: '/a', offset: 3, limit: 1 }), /^read_file: offset 3: /);
  assert.match(refused('read_file', { file_path: '/a.pdf', pages: '1-2' }), /^read_file: pages: /);
  assert.match(refused('edit', { file_path: '/a', old_string: 'x', new_string: 'y', replace_all: true }), /^edit: replace_all: /);
  assert.match(refused('list_directory', { path: '/r', ignore: ['*.log'] }), /^list_directory: ignore: /);
  assert.match(refused('list_directory', { path: '/r', file_filtering_options: { respect_qwen_ignore: true } }), /respect_qwen_ignore/);
  assert.equal(refused('list_directory', { path: '/r', ignore: [] }), undefined);
});

test('the server error texts map to canonical codes where the meaning is the same', () => {
  const cases = [
    ['read_text_file', 'MCP error -32602: Input validation error: Invalid arguments for tool read_text_file: x', 'invalid_tool_params'],
    ['read_text_file', 'Access denied - path outside allowed directories: /etc/passwd not in /r', 'path_not_in_workspace'],
    ['write_file', 'Access denied - symlink target outside allowed directories: /o/x not in /r', 'path_not_in_workspace'],
    ['read_text_file', "ENOENT: no such file or directory, open '/r/x'", 'file_not_found'],
    ['edit_file', "ENOENT: no such file or directory, open '/r/x'", 'file_not_found'],
    ['write_file', "ENOENT: no such file or directory, open '/r/d/x'", 'file_write_failure'],
    ['read_text_file', 'EISDIR: illegal operation on a directory, read', 'target_is_directory'],
    ['write_file', "EISDIR: illegal operation on a directory, rename '/r/d.1.tmp' -> '/r/d'", 'target_is_directory'],
    ['list_directory', "ENOTDIR: not a directory, scandir '/r/a'", 'path_is_not_a_directory'],
    ['list_directory', "ENOENT: no such file or directory, scandir '/r/n'", 'ls_execution_error'],
    ['search_files', "ENOENT: no such file or directory, scandir '/r/n'", 'search_path_not_found'],
    ['search_files', "ENOTDIR: not a directory, scandir '/r/a'", 'search_path_not_a_directory'],
    ['edit_file', 'Could not find exact match for edit:\nzzz', 'edit_no_occurrence_found'],
    ['write_file', "EACCES: permission denied, open '/r/ro'", 'permission_denied'],
    ['write_file', 'ENOSPC: no space left on device, write', 'no_space_left'],
    ['read_text_file', 'Ambiguous Unicode path component: x', 'unknown'],
    ['list_directory', 'EISDIR: something', 'unknown'],
  ];
  for (const [tool, message, code] of cases) {
    assert.equal(errorCode(tool, message), code, message);
    assert.ok(CANONICAL_CODES.has(code));
  }
});

test("a result's text is what the model reads; isError is an error with the server's message", () => {
  assert.deepEqual(toOutcome('list_directory', { content: [{ type: 'text', text: '[FILE] a' }] })._meta.toolpass, {
    status: 'success',
    llmContent: '[FILE] a',
  });
  const failed = toOutcome('read_text_file', { isError: true, content: [{ type: 'text', text: "ENOENT: no such file or directory, open '/r/x'" }] });
  assert.equal(failed.isError, true);
  assert.deepEqual(failed._meta.toolpass.error, { code: 'file_not_found', message: "ENOENT: no such file or directory, open '/r/x'" });
  assert.deepEqual(toOutcome('read_text_file', { content: [] })._meta.toolpass, { status: 'success', llmContent: '' });
});
