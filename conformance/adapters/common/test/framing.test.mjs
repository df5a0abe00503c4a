// The shared toolpass/1 framing and session table, over in-memory streams.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import test from 'node:test';

import { notificationLine, RpcError, serve } from '../framing.mjs';
import { Sessions, sessionRoot, toolRequest } from '../server.mjs';

async function exchange(lines, handle) {
  const input = new PassThrough();
  const written = [];
  const done = serve(handle, input, { write: (s) => written.push(s) });
  input.end(lines.join('\n') + '\n');
  await done;
  return written.map((s) => JSON.parse(s));
}

test('requests are answered by id; notifications and blank lines are not', async () => {
  const replies = await exchange(
    ['{"jsonrpc":"2.0","id":1,"method":"a"}', '', '{"jsonrpc":"2.0","method":"note"}', '{"jsonrpc":"2.0","id":"x","method":"b"}'],
    async (method) => ({ method }),
  );
  assert.deepEqual(replies, [
    { jsonrpc: '2.0', id: 1, result: { method: 'a' } },
    { jsonrpc: '2.0', id: 'x', result: { method: 'b' } },
  ]);
});

test('a line that is not JSON is a parse error; an RpcError keeps its code', async () => {
  const replies = await exchange(['{nope', '{"jsonrpc":"2.0","id":2,"method":"m"}'], async () => {
    throw new RpcError(-32601, 'method not found: m');
  });
  assert.equal(replies[0].id, null);
  assert.equal(replies[0].error.code, -32700);
  assert.match(replies[0].error.message, /parse error/);
  assert.deepEqual(replies[1], { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method not found: m' } });
});

test('calls run one at a time, in order, whatever each takes', async () => {
  const order = [];
  const replies = await exchange(['{"jsonrpc":"2.0","id":1,"method":"slow"}', '{"jsonrpc":"2.0","id":2,"method":"fast"}'], async (m) => {
    if (m === 'slow') await new Promise((r) => setTimeout(r, 20));
    order.push(m);
    return {};
  });
  assert.deepEqual(order, ['slow', 'fast']);
  assert.deepEqual(replies.map((r) => r.id), [1, 2]);
});

test('notifications/cancelled aborts a running request at once, and a queued one before it starts', async () => {
  const input = new PassThrough();
  const written = [];
  const seen = [];
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const done = serve(
    async (method, _params, { requestId, signal }) => {
      seen.push({ method, requestId, abortedAtStart: signal.aborted });
      if (method !== 'wait') return {};
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return { reason: signal.reason.message };
    },
    input,
    { write: (s) => written.push(s) },
  );
  const line = (message) => input.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  line({ id: 1, method: 'wait' });
  line({ id: 2, method: 'queued' });
  await running;
  line({ method: 'notifications/cancelled', params: { requestId: 2 } });
  line({ method: 'notifications/cancelled', params: { requestId: 99, reason: 'never sent' } });
  line({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'user pressed Esc' } });
  input.end();
  await done;
  assert.deepEqual(written.map((s) => JSON.parse(s)), [
    { jsonrpc: '2.0', id: 1, result: { reason: 'user pressed Esc' } },
    { jsonrpc: '2.0', id: 2, result: {} },
  ]);
  assert.deepEqual(seen, [
    { method: 'wait', requestId: 1, abortedAtStart: false },
    { method: 'queued', requestId: 2, abortedAtStart: true },
  ]);
});

test("toolpass/session.close aborts that session's pending calls, not another session's, and is answered after them", async () => {
  const input = new PassThrough();
  const written = [];
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const done = serve(
    async (method, params, { signal }) => {
      if (method !== 'tools/call') return { closed: params.sessionId };
      if (params.name === 'wait') {
        started();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      }
      return { name: params.name, aborted: signal.aborted };
    },
    input,
    { write: (s) => written.push(s) },
  );
  const line = (message) => input.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  const call = (id, name, sessionId) => line({ id, method: 'tools/call', params: { name, _meta: { toolpass: { sessionId, callId: `c${id}` } } } });
  call(1, 'wait', 's1');
  call(2, 'other', 's2');
  await running;
  line({ id: 3, method: 'toolpass/session.close', params: { sessionId: 's1' } });
  input.end();
  await done;
  assert.deepEqual(written.map((s) => JSON.parse(s)), [
    { jsonrpc: '2.0', id: 1, result: { name: 'wait', aborted: true } },
    { jsonrpc: '2.0', id: 2, result: { name: 'other', aborted: false } },
    { jsonrpc: '2.0', id: 3, result: { closed: 's1' } },
  ]);
});

test('an unknown session is -32010, and a closed one is unknown', () => {
  const sessions = new Sessions('p');
  const id = sessions.add({ n: 1 });
  assert.equal(id, 'p-1');
  assert.deepEqual(sessions.get(id), { n: 1 });
  sessions.close(id);
  assert.throws(() => sessions.get(id), (e) => e.code === -32010 && /unknown session p-1/.test(e.message));
});

test('a session whose init fails is removed again; the root must be absolute', async () => {
  const sessions = new Sessions('q');
  await assert.rejects(sessions.open({}, async () => { throw new Error('boom'); }), /boom/);
  assert.throws(() => sessions.get('q-1'), (e) => e.code === -32010);
  const id = await sessions.open({ x: 1 }, async () => {});
  assert.deepEqual(sessions.get(id), { x: 1 });
  assert.equal(sessionRoot({ root: '/r' }), '/r');
  assert.throws(() => sessionRoot({ root: 'r' }), (e) => e.code === -32602);
});

test('a scheduler request takes the context call id, else a counter', () => {
  assert.deepEqual(toolRequest({ sessionId: 's', callId: 'c' }, 3, 'read_file', { a: 1 }), {
    callId: 'c', name: 'read_file', args: { a: 1 }, isClientInitiated: false, prompt_id: 's-3',
  });
  assert.equal(toolRequest({ sessionId: 's' }, 4, 'x', {}).callId, 'call-4');
});

test('a notification is one line with a method and params and no id', () => {
  const line = notificationLine('toolpass/notice', { sessionId: 's1', kind: 'k', text: 'a\nb' });
  assert.equal(line.endsWith('\n'), true);
  assert.equal(line.slice(0, -1).includes('\n'), false);
  assert.deepEqual(JSON.parse(line), {
    jsonrpc: '2.0',
    method: 'toolpass/notice',
    params: { sessionId: 's1', kind: 'k', text: 'a\nb' },
  });
});
