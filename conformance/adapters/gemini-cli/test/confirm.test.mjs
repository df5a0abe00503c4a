// The confirmation flow's pure parts, without Gemini installed: Gemini's
// confirmation details as toolpass Confirmations, toolpass answers as
// Gemini's TOOL_CONFIRMATION_RESPONSE, and a call driven through a
// scheduler that parks it the way Gemini's does.

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import test from 'node:test';

import { startCall } from '../lib/calls.mjs';
import { toConfirmation, toGeminiAnswer } from '../lib/confirmation.mjs';

const noop = async () => {};

test("Gemini's edit, exec, mcp and info details become toolpass confirmations", () => {
  const edit = {
    type: 'edit',
    title: 'Confirm Edit: a.txt',
    fileName: 'a.txt',
    filePath: '/r/a.txt',
    fileDiff: '@@\n-a\n+b\n',
    originalContent: 'a\n',
    newContent: 'b\n',
    isBuildFile: false,
    onConfirm: noop,
  };
  assert.deepEqual(toConfirmation(edit), { type: 'edit', title: 'Confirm Edit: a.txt', path: '/r/a.txt', diff: '@@\n-a\n+b\n', old: 'a\n', new: 'b\n' });
  assert.equal('old' in toConfirmation({ ...edit, originalContent: null }), false, 'a file edit would create has no old content');
  assert.equal(toConfirmation({ ...edit, originalContent: '' }).old, '', "write_file's new file is shown as '' before, as Gemini shows it");
  const exec = { type: 'exec', title: 'Confirm Shell Command', command: 'rm a && ls', rootCommand: 'rm, ls', rootCommands: ['rm', 'ls'], onConfirm: noop };
  assert.deepEqual(toConfirmation(exec), { type: 'exec', title: 'Confirm Shell Command', command: 'rm a && ls', rootCommand: 'rm, ls' });
  const mcp = { type: 'mcp', title: 'Confirm MCP Tool Execution', serverName: 's', toolName: 't', toolDisplayName: 'mcp_s_t', toolArgs: {}, onConfirm: noop };
  assert.deepEqual(toConfirmation(mcp), { type: 'mcp', title: 'Confirm MCP Tool Execution', serverName: 's', toolName: 't', toolDisplayName: 'mcp_s_t' });
  const info = { type: 'info', title: 'Confirm Web Fetch', prompt: 'Fetch?', urls: ['https://x'], onConfirm: noop };
  assert.deepEqual(toConfirmation(info), { type: 'info', title: 'Confirm Web Fetch', prompt: 'Fetch?', urls: ['https://x'] });
  assert.equal('urls' in toConfirmation({ ...info, urls: [] }), false);
});

test("ask_user's questions keep their shape; a type toolpass has no form for is an error naming it", () => {
  const asked = toConfirmation({
    type: 'ask_user',
    title: 'Ask User',
    questions: [
      { question: 'Which?', header: 'Pick', type: 'choice', options: [{ label: 'a', description: 'first' }, { label: 'b', description: '' }], multiSelect: true },
      { question: 'Why?', header: 'Reason', type: 'text' },
    ],
  });
  assert.deepEqual(asked, {
    type: 'ask_user_question',
    title: 'Ask User',
    questions: [
      { question: 'Which?', header: 'Pick', options: [{ label: 'a', description: 'first' }, { label: 'b', description: '' }], multiSelect: true },
      { question: 'Why?', header: 'Reason', options: [], multiSelect: false },
    ],
  });
  for (const type of ['sandbox_expansion', 'exit_plan_mode']) {
    const unknown = toConfirmation({ type, title: 'x' });
    assert.ok(unknown instanceof Error);
    assert.match(unknown.message, new RegExp(`"${type}", which toolpass/1 has no form for`));
  }
});

test("toolpass answers become Gemini's outcomes; always is the session choice Gemini offers for the type", () => {
  const exec = { type: 'exec', title: 'Confirm Shell Command' };
  const edit = { type: 'edit', title: 'Confirm Edit: a.txt' };
  const mcp = { type: 'mcp', title: 'Confirm MCP Tool Execution' };
  const ask = { type: 'ask_user', title: 'Ask User' };
  assert.deepEqual(toGeminiAnswer({ outcome: 'proceed_once' }, exec), { outcome: 'proceed_once', payload: undefined });
  assert.deepEqual(toGeminiAnswer({ outcome: 'proceed_always' }, exec), { outcome: 'proceed_always', payload: undefined });
  assert.deepEqual(toGeminiAnswer({ outcome: 'proceed_always' }, edit), { outcome: 'proceed_always', payload: undefined });
  assert.deepEqual(toGeminiAnswer({ outcome: 'proceed_always' }, mcp), { outcome: 'proceed_always_tool', payload: undefined });
  assert.throws(() => toGeminiAnswer({ outcome: 'proceed_always' }, ask), (e) => e.code === -32602 && /offers no proceed_always/.test(e.message));
  assert.deepEqual(toGeminiAnswer({ outcome: 'cancel' }, edit), { outcome: 'cancel', payload: undefined });
  assert.deepEqual(toGeminiAnswer({ outcome: 'proceed_once', answers: { 0: 'a' } }, ask), { outcome: 'proceed_once', payload: { answers: { 0: 'a' } } });
  assert.throws(() => toGeminiAnswer({ outcome: 'proceed_once', answers: { 0: 'a' } }, exec), (e) => e.code === -32602 && /answers go with an ask_user_question/.test(e.message));
});

test('modify is an inline modification of an edit confirmation, and refused anywhere else', () => {
  const edit = { type: 'edit', title: 'Confirm Write: a.txt' };
  assert.deepEqual(toGeminiAnswer({ outcome: 'modify', modifiedContent: 'mine\n' }, edit), { outcome: 'proceed_once', payload: { newContent: 'mine\n' } });
  assert.deepEqual(toGeminiAnswer({ outcome: 'modify', modifiedContent: '' }, edit).payload, { newContent: '' }, 'Gemini applies an empty content too');
  assert.throws(() => toGeminiAnswer({ outcome: 'modify' }, edit), (e) => e.code === -32602 && /needs a modifiedContent/.test(e.message));
  for (const type of ['exec', 'mcp', 'info', 'ask_user']) {
    assert.throws(() => toGeminiAnswer({ outcome: 'modify', modifiedContent: 'x' }, { type, title: 't' }), (e) => e.code === -32602 && /offers no modify/.test(e.message));
  }
  assert.throws(() => toGeminiAnswer({ outcome: 'yes' }, edit), (e) => e.code === -32602 && /not "yes"/.test(e.message));
});

const TYPES = { TOOL_CALLS_UPDATE: 'tool-calls-update', TOOL_CONFIRMATION_RESPONSE: 'tool-confirmation-response' };

/** A message bus as Gemini's is one: an EventEmitter with subscribe/publish. */
function fakeBus() {
  const bus = new EventEmitter();
  bus.subscribe = (type, listener) => bus.on(type, listener);
  bus.unsubscribe = (type, listener) => bus.off(type, listener);
  bus.publish = async (message) => bus.emit(message.type, message);
  return bus;
}

/**
 * A Scheduler shaped like Gemini's for one call: it publishes the call
 * parked under a correlationId (twice, as Gemini re-sends state), then
 * waits for the response with that id, or for its signal; `second`
 * parks it once more under a new id. Another scheduler's update, sent
 * first, must not be taken for this call's.
 */
function fakeGemini(bus, log, { second = false } = {}) {
  class Scheduler {
    constructor({ schedulerId }) {
      this.schedulerId = schedulerId;
      log.push(['new', schedulerId]);
    }

    dispose() {
      log.push(['dispose', this.schedulerId]);
    }

    async schedule([request], signal) {
      const park = (correlationId, extra = {}) => {
        const call = { request, status: 'awaiting_approval', correlationId, confirmationDetails: { type: 'exec', title: 'T', command: 'rm a', rootCommand: 'rm' }, ...extra };
        bus.publish({ type: TYPES.TOOL_CALLS_UPDATE, schedulerId: 'someone-else', toolCalls: [{ ...call, correlationId: 'theirs' }] });
        bus.publish({ type: TYPES.TOOL_CALLS_UPDATE, schedulerId: this.schedulerId, toolCalls: [call] });
        bus.publish({ type: TYPES.TOOL_CALLS_UPDATE, schedulerId: this.schedulerId, toolCalls: [call] });
      };
      const answered = (correlationId) =>
        new Promise((resolve) => {
          const onResponse = (message) => {
            if (message.correlationId !== correlationId) return;
            bus.off(TYPES.TOOL_CONFIRMATION_RESPONSE, onResponse);
            resolve(message);
          };
          bus.on(TYPES.TOOL_CONFIRMATION_RESPONSE, onResponse);
          signal.addEventListener('abort', () => resolve({ outcome: 'aborted' }), { once: true });
        });
      park('q1');
      let response = await answered('q1');
      log.push(['response', response]);
      if (second && response.outcome !== 'aborted') {
        park('q2');
        response = await answered('q2');
      }
      const status = response.outcome === 'cancel' || response.outcome === 'aborted' ? 'cancelled' : 'success';
      bus.publish({ type: TYPES.TOOL_CALLS_UPDATE, schedulerId: this.schedulerId, toolCalls: [{ request, status, liveOutput: 'ran' }] });
      return [{ request, status, response: { responseParts: [] } }];
    }
  }
  return { Scheduler, MessageBusType: TYPES };
}

test('a call parks once per question, runs when answered and ends on its own scheduler', async () => {
  const bus = fakeBus();
  const log = [];
  const outputs = [];
  const config = { getMessageBus: () => bus };
  const call = startCall(fakeGemini(bus, log), config, { callId: 'c1' }, { schedulerId: 's1', onOutput: (o) => outputs.push(o) });
  const parked = await call.next();
  assert.deepEqual([parked.kind, parked.correlationId, call.parked.type], ['awaiting', 'q1', 'exec']);
  const done = await call.answer('proceed_once', undefined);
  assert.equal(call.parked, undefined);
  assert.deepEqual(log[1], [
    'response',
    { type: TYPES.TOOL_CONFIRMATION_RESPONSE, correlationId: 'q1', confirmed: true, requiresUserConfirmation: false, outcome: 'proceed_once' },
  ]);
  assert.deepEqual([done.kind, done.done.status], ['done', 'success']);
  assert.deepEqual(outputs, ['ran']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log.at(-1), ['dispose', 's1']);
  assert.equal(bus.listenerCount(TYPES.TOOL_CALLS_UPDATE), 0, 'the call stops listening once done');
});

test('a cancel is published unconfirmed with its payload-free outcome; a new question parks again', async () => {
  const bus = fakeBus();
  const log = [];
  const call = startCall(fakeGemini(bus, log, { second: true }), { getMessageBus: () => bus }, { callId: 'c1' }, { schedulerId: 's1' });
  await call.next();
  const again = await call.answer('proceed_once', { newContent: 'x' });
  assert.deepEqual([again.kind, again.correlationId], ['awaiting', 'q2']);
  assert.deepEqual(log[1][1].payload, { newContent: 'x' });
  const done = await call.answer('cancel', undefined);
  assert.equal(done.done.status, 'cancelled');
});

test("a parked call is cancelled through its own signal, or its request's", async () => {
  const bus = fakeBus();
  const request = new AbortController();
  const call = startCall(fakeGemini(bus, []), { getMessageBus: () => bus }, { callId: 'c1' }, { schedulerId: 's1', signal: request.signal });
  await call.next();
  request.abort(new Error('user pressed Esc'));
  assert.equal((await call.next()).done.status, 'cancelled');
  assert.equal(call.controller.signal.reason.message, 'user pressed Esc');
});
