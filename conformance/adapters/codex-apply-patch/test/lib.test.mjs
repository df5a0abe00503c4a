// The patch builder and the outcome mapping, without the Codex binary.

import assert from 'node:assert/strict';
import test from 'node:test';

import { errorCode, toOutcome } from '../lib/outcome.mjs';
import { buildEditPatch, editArguments, occurrences, patchLines } from '../lib/patch.mjs';

const update = (path, ...lines) => ['*** Begin Patch', `*** Update File: ${path}`, ...lines, '*** End Patch', ''].join('\n');

test('patch lines drop one final line break only', () => {
  assert.deepEqual(patchLines('a\nb\n'), ['a', 'b']);
  assert.deepEqual(patchLines('a\nb'), ['a', 'b']);
  assert.deepEqual(patchLines('a\n\n'), ['a', '']);
});

test('a whole-line edit is one hunk of its lines', () => {
  const { patch, widened } = buildEditPatch({ path: 'a.txt', oldString: 'two\n', newString: 'TWO\n', fileText: 'one\ntwo\nthree\n' });
  assert.equal(patch, update('a.txt', '@@', '-two', '+TWO'));
  assert.equal(widened, true);
});

test('an old_string inside a line is widened to that line', () => {
  const { patch } = buildEditPatch({ path: 'a.txt', oldString: 'ell', newString: 'ELL', fileText: 'hello\nworld\n' });
  assert.equal(patch, update('a.txt', '@@', '-hello', '+hELLo'));
});

test('a multi-line old_string spanning partial lines takes both lines whole', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'b\nc', newString: 'X', fileText: 'ab\ncd\ne\n' });
  assert.equal(patch, update('f', '@@', '-ab', '-cd', '+aXd'));
});

test('a multi-line new_string becomes several + lines', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'b', newString: 'b1\nb2', fileText: 'a\nb\nc\n' });
  assert.equal(patch, update('f', '@@', '-b', '+b1', '+b2'));
});

test('deleting a line with its break leaves only - lines', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'b\n', newString: '', fileText: 'a\nb\nc\n' });
  assert.equal(patch, update('f', '@@', '-b'));
});

test('a replacement that drops a line break joins the next line', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'a\n', newString: 'x', fileText: 'a\nb\nc\n' });
  assert.equal(patch, update('f', '@@', '-a', '-b', '+xb'));
});

test('the last line without a final newline is matched as it is', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'b', newString: 'B', fileText: 'a\nb' });
  assert.equal(patch, update('f', '@@', '-b', '+B'));
});

test('CRLF lines keep their \\r on - and + lines', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'beta', newString: 'BETA', fileText: 'alpha\r\nbeta\r\ngamma\r\n' });
  assert.equal(patch, update('f', '@@', '-beta\r', '+BETA\r'));
});

test('replace_all makes one chunk per line region, merging regions on one line', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'x', newString: 'y', replaceAll: true, fileText: 'x x\na\nx\n' });
  assert.equal(patch, update('f', '@@', '-x x', '+y y', '@@', '-x', '+y'));
});

test('without replace_all only the first occurrence is used', () => {
  const { patch } = buildEditPatch({ path: 'f', oldString: 'x', newString: 'y', fileText: 'x\nx\n' });
  assert.equal(patch, update('f', '@@', '-x', '+y'));
  assert.deepEqual(occurrences('aaaa', 'aa', true), [0, 2]);
});

test('an old_string not in the file (or no file text) is sent as its own lines', () => {
  const expected = update('f', '@@', '-  a', '-b', '+c');
  assert.equal(buildEditPatch({ path: 'f', oldString: '  a\nb\n', newString: 'c\n', fileText: 'a\nb\n' }).patch, expected);
  const unread = buildEditPatch({ path: 'f', oldString: '  a\nb\n', newString: 'c\n' });
  assert.equal(unread.patch, expected);
  assert.equal(unread.widened, false);
});

test('an empty old_string adds the file', () => {
  const { patch, kind } = buildEditPatch({ path: 'n.txt', oldString: '', newString: 'one\ntwo\n' });
  assert.equal(kind, 'add');
  assert.equal(patch, '*** Begin Patch\n*** Add File: n.txt\n+one\n+two\n*** End Patch\n');
  assert.equal(buildEditPatch({ path: 'e', oldString: '', newString: '' }).patch, '*** Begin Patch\n*** Add File: e\n*** End Patch\n');
});

test('edit arguments are checked against the declared schema', () => {
  assert.equal(editArguments({ file_path: 'a', old_string: 'x', new_string: 'y' }).replaceAll, false);
  assert.equal(editArguments({ file_path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' }).ok, false);
  assert.match(editArguments({ file_path: 'a', old_string: ['x'], new_string: 'y' }).message, /old_string/);
  assert.equal(editArguments(undefined).ok, false);
});

test('apply_patch success and failure become Outcomes with canonical codes', () => {
  const ok = toOutcome({ code: 0, stdout: 'Success. Updated the following files:\nM a.txt\n', stderr: '' });
  assert.equal(ok._meta.toolpass.status, 'success');
  assert.equal(ok._meta.toolpass.llmContent, 'Success. Updated the following files:\nM a.txt');
  const missing = toOutcome({ code: 1, stdout: '', stderr: 'Failed to find expected lines in /r/a.txt:\nzzz\n' });
  assert.deepEqual(missing._meta.toolpass.error, { code: 'edit_no_occurrence_found', message: 'Failed to find expected lines in /r/a.txt:\nzzz' });
  assert.equal(missing.isError, true);
  assert.equal(errorCode('Failed to read file to update /r/n: No such file or directory (os error 2)'), 'file_not_found');
  assert.equal(errorCode('Failed to read file to update /r/u: invalid utf-8 sequence'), 'read_content_failure');
  assert.equal(errorCode("Invalid patch: The first line of the patch must be '*** Begin Patch'"), 'invalid_tool_params');
  assert.equal(errorCode('something new'), 'execution_failed');
  assert.equal(toOutcome({ timedOut: true })._meta.toolpass.error.code, 'execution_timeout');
});

test("the sandbox launcher's warnings are not part of apply_patch's message", () => {
  const stderr = 'WARNING: proceeding, even though we could not create PATH aliases: Refusing …\nFailed to write file /etc/passwd\n';
  const outcome = toOutcome({ code: 1, stdout: '', stderr });
  assert.deepEqual(outcome._meta.toolpass.error, { code: 'file_write_failure', message: 'Failed to write file /etc/passwd' });
});
