// The shared Outcome pieces: the model's text, the envelope, the FileDiff
// display and the session config filter, with no peer installed.

import assert from 'node:assert/strict';
import test from 'node:test';

import { awaitingOutcome, CANONICAL_CODES, canonicalCode, commonDisplay, envelope, failure, modelText, pickConfig } from '../outcome.mjs';

const part = (response) => ({ responseParts: [{ functionResponse: { response } }] });

test('the model text is the output, else the error, else empty', () => {
  assert.equal(modelText(part({ output: 'o', error: 'e' })), 'o');
  assert.equal(modelText(part({ error: 'e' })), 'e');
  assert.equal(modelText({}), '');
});

test('the envelope puts llmContent in one text block and isError follows the status', () => {
  assert.deepEqual(envelope({ status: 'error', llmContent: '' }), {
    content: [],
    isError: true,
    _meta: { toolpass: { status: 'error', llmContent: '' } },
  });
  assert.deepEqual(envelope({ status: 'cancelled', llmContent: 'x' }).content, [{ type: 'text', text: 'x' }]);
  assert.equal(envelope({ status: 'cancelled', llmContent: 'x' }).isError, true);
  assert.equal(envelope({ status: 'awaiting_confirmation', llmContent: '' }).isError, false);
});

test('a string is text, a FileDiff a diff; other shapes are left to the adapter', () => {
  assert.deepEqual(commonDisplay('hi'), { type: 'text', text: 'hi' });
  assert.equal(commonDisplay(''), undefined);
  assert.equal(commonDisplay({ summary: 'Found 1 match', matches: [] }), undefined);
  const diff = commonDisplay({
    fileDiff: '--- f\n+++ f\n@@ -1,2 +1 @@\n-a\n-b\n+c\n',
    filePath: '/r/f',
    originalContent: 'a\nb\n',
    newContent: 'c\n',
  });
  assert.deepEqual(diff.stat, { addedLines: 1, removedLines: 2 });
  assert.equal(diff.old, 'a\nb\n');
  assert.equal(diff.path, '/r/f');
});

test("a modified proposal's user half is userStat; an unmodified one has none", () => {
  const base = { fileDiff: '--- f\n+++ f\n@@ -1 +1,2 @@\n-a\n+b\n+c\n', filePath: '/r/f', originalContent: 'a\n', newContent: 'b\nc\n' };
  const user = { model_added_lines: 1, model_removed_lines: 1, user_added_lines: 1, user_removed_lines: 0, user_added_chars: 1, user_removed_chars: 0 };
  assert.deepEqual(commonDisplay({ ...base, diffStat: user }).userStat, { addedLines: 1, removedLines: 0 });
  const untouched = { ...user, user_added_lines: 0, user_added_chars: 0 };
  assert.equal(commonDisplay({ ...base, diffStat: untouched }).userStat, undefined);
  assert.equal(commonDisplay(base).userStat, undefined);
});

test('config keys are picked; an unmappable one is refused with -32602', () => {
  assert.deepEqual(pickConfig({ a: 1 }, ['a', 'b'], 'Peer'), { a: 1 });
  assert.deepEqual(pickConfig(undefined, ['a'], 'Peer'), {});
  assert.throws(
    () => pickConfig({ a: 1, z: 2 }, ['a'], 'Peer'),
    (e) => e.code === -32602 && /cannot map onto Peer: z/.test(e.message),
  );
});

test("the canonical codes come from the protocol schema's enum, and failure() refuses any other", () => {
  assert.ok(CANONICAL_CODES.has('edit_no_occurrence_found'));
  assert.ok(CANONICAL_CODES.size >= 50, `only ${CANONICAL_CODES.size} codes read`);
  assert.equal(canonicalCode('file_not_found'), 'file_not_found');
  assert.equal(canonicalCode('patch_rejected'), 'unknown');
  assert.equal(failure('file_not_found', 'gone')._meta.toolpass.error.code, 'file_not_found');
  assert.throws(() => failure('patch_rejected', 'no'), /patch_rejected is not a canonical error code/);
});

test('a parked Outcome shows the confirmation and is no error to MCP', () => {
  const confirmation = { type: 'exec', title: 'Confirm Shell Command', command: 'ls', rootCommand: 'ls' };
  assert.deepEqual(awaitingOutcome(confirmation), {
    content: [],
    isError: false,
    _meta: { toolpass: { status: 'awaiting_confirmation', llmContent: '', confirmation } },
  });
});
