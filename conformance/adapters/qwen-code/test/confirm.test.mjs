// The confirmation flow's pure parts, without the Qwen bundle: Qwen's
// confirmation details as toolpass Confirmations, toolpass answers as
// Qwen's onConfirm arguments, and a call driven through a scheduler that
// parks it the way Qwen's does.

import assert from 'node:assert/strict';
import test from 'node:test';

import { startCall } from '../lib/calls.mjs';
import { toConfirmation, toQwenAnswer } from '../lib/confirmation.mjs';
import { toOutcome } from '../lib/outcome.mjs';

const noop = async () => {};

test("Qwen's exec, edit, mcp and info details become toolpass confirmations", () => {
  const exec = { type: 'exec', title: 'Confirm Shell Command', command: 'touch x', rootCommand: 'touch', permissionRules: ['Bash(touch *)'], onConfirm: noop };
  assert.deepEqual(toConfirmation(exec), { type: 'exec', title: 'Confirm Shell Command', command: 'touch x', rootCommand: 'touch' });
  const edit = {
    type: 'edit',
    title: 'Confirm Sed Edit: a.txt',
    fileName: 'a.txt',
    filePath: '/r/a.txt',
    fileDiff: '@@\n-a\n+b\n',
    originalContent: 'a\n',
    newContent: 'b\n',
    hideModify: true,
    onConfirm: noop,
  };
  assert.deepEqual(toConfirmation(edit), { type: 'edit', title: 'Confirm Sed Edit: a.txt', path: '/r/a.txt', diff: '@@\n-a\n+b\n', old: 'a\n', new: 'b\n' });
  assert.equal('old' in toConfirmation({ ...edit, originalContent: null }), false, 'a file to be created has no old content');
  const mcp = { type: 'mcp', title: 'Confirm MCP Tool Execution', serverName: 's', toolName: 't', toolDisplayName: 'T', onConfirm: noop };
  assert.deepEqual(toConfirmation(mcp), { type: 'mcp', title: 'Confirm MCP Tool Execution', serverName: 's', toolName: 't', toolDisplayName: 'T' });
  const info = { type: 'info', title: 'Confirm Web Fetch', prompt: 'Fetch?', urls: ['https://x'], onConfirm: noop };
  assert.deepEqual(toConfirmation(info), { type: 'info', title: 'Confirm Web Fetch', prompt: 'Fetch?', urls: ['https://x'] });
});

test('a plan is an info yes-or-no, questions keep their shape, an unknown type is an error', () => {
  assert.deepEqual(toConfirmation({ type: 'plan', title: 'Would you like to proceed?', plan: '1. do it' }), {
    type: 'info',
    title: 'Would you like to proceed?',
    prompt: '1. do it',
  });
  const asked = toConfirmation({
    type: 'ask_user_question',
    title: 'Please answer the following question(s):',
    questions: [{ question: 'Which?', header: 'Pick', options: [{ label: 'a', description: 'first' }, { label: 'b' }], multiSelect: true }],
  });
  assert.deepEqual(asked.questions, [
    { question: 'Which?', header: 'Pick', options: [{ label: 'a', description: 'first' }, { label: 'b', description: '' }], multiSelect: true },
  ]);
  const unknown = toConfirmation({ type: 'wizard', title: 'x' });
  assert.ok(unknown instanceof Error);
  assert.match(unknown.message, /"wizard", which toolpass\/1 has no form for/);
});

test("toolpass answers become Qwen's outcomes; modify is an inline modify where Qwen offers one", () => {
  const exec = { type: 'exec', title: 'Confirm Shell Command' };
  const edit = { type: 'edit', title: 'Confirm Edit: a.txt' };
  assert.deepEqual(toQwenAnswer({ outcome: 'proceed_once' }, exec), ['proceed_once', undefined]);
  assert.deepEqual(toQwenAnswer({ outcome: 'proceed_always' }, exec), ['proceed_always', undefined]);
  assert.deepEqual(toQwenAnswer({ outcome: 'cancel' }, edit), ['cancel', undefined]);
  const ask = { type: 'ask_user_question', title: 'Please answer the following question(s):' };
  assert.deepEqual(toQwenAnswer({ outcome: 'proceed_once', answers: { 0: 'a' } }, ask), ['proceed_once', { answers: { 0: 'a' } }]);
  assert.throws(() => toQwenAnswer({ outcome: 'proceed_once', answers: { 0: 'a' } }, exec), (e) => e.code === -32602 && /answers go with an ask_user_question/.test(e.message));
  assert.throws(() => toQwenAnswer({ outcome: 'modify', modifiedContent: 'A' }, ask), (e) => e.code === -32602 && /offers no modify/.test(e.message));
  assert.deepEqual(toQwenAnswer({ outcome: 'modify', modifiedContent: 'mine\n' }, edit), ['proceed_once', { newContent: 'mine\n' }]);
  assert.throws(() => toQwenAnswer({ outcome: 'modify', modifiedContent: 'x' }, { ...edit, hideModify: true }), /offers no modify/);
  assert.throws(() => toQwenAnswer({ outcome: 'modify', modifiedContent: 'x' }, exec), /exec confirmation .* offers no modify/);
  assert.throws(() => toQwenAnswer({ outcome: 'modify' }, edit), /non-empty modifiedContent/);
  assert.throws(() => toQwenAnswer({ outcome: 'yes' }, exec), (e) => e.code === -32602 && /not "yes"/.test(e.message));
});

test('a cancelled Outcome is an error to MCP', () => {
  const declined = toOutcome(
    { responseParts: [{ functionResponse: { response: { error: '[Operation Cancelled] Reason: User did not allow tool call' } } }] },
    { status: 'cancelled' },
  );
  assert.deepEqual(declined._meta.toolpass, { status: 'cancelled', llmContent: '[Operation Cancelled] Reason: User did not allow tool call' });
  assert.equal(declined.isError, true);
});

/**
 * A scheduler shaped like Qwen's `executeToolCall` for one call: it parks
 * the call with details whose `onConfirm` resolves only once the call has
 * run (as Qwen's does), re-sends the same details on another update, and
 * honours the abort signal while parked.
 */
function fakeScheduler(log) {
  return (config, request, signal, { onToolCallsUpdate, onAllToolCallsComplete }) =>
    new Promise((resolve) => {
      const finish = async (status, text) => {
        await onAllToolCallsComplete([{ request, status }]);
        resolve({ responseParts: [{ functionResponse: { response: { output: text } } }] });
      };
      const details = {
        type: 'exec',
        title: 'Confirm Shell Command',
        onConfirm: async (outcome, payload) => {
          log.push([outcome, payload]);
          if (outcome === 'cancel') return finish('cancelled', 'declined');
          await finish('success', `ran with ${config}`);
        },
      };
      signal.addEventListener('abort', () => finish('cancelled', 'aborted'));
      const parked = [{ request, status: 'awaiting_approval', confirmationDetails: details }];
      onToolCallsUpdate(parked);
      onToolCallsUpdate(parked);
    });
}

test('a call parks once, runs when answered and reports its final status', async () => {
  const log = [];
  const call = startCall(fakeScheduler(log), 'cfg', { callId: 'c1' });
  const parked = await call.next();
  assert.equal(parked.kind, 'awaiting');
  assert.equal(call.parked, parked.details);
  const done = await call.answer('proceed_once', undefined);
  assert.equal(call.parked, undefined);
  assert.deepEqual(log, [['proceed_once', undefined]]);
  assert.equal(done.kind, 'done');
  assert.equal(done.status, 'success');
  assert.equal(done.response.responseParts[0].functionResponse.response.output, 'ran with cfg');
});

test('a parked call is cancelled through its own signal; a scheduler that throws is reported', async () => {
  const call = startCall(fakeScheduler([]), 'cfg', { callId: 'c1' });
  await call.next();
  call.cancel(new Error('session closed'));
  assert.deepEqual(await call.next(), {
    kind: 'done',
    status: 'cancelled',
    response: { responseParts: [{ functionResponse: { response: { output: 'aborted' } } }] },
  });
  const broken = startCall(() => Promise.reject(new Error('boom')), 'cfg', { callId: 'c2' });
  const failed = await broken.next();
  assert.equal(failed.kind, 'failed');
  assert.match(failed.error.message, /boom/);
});
