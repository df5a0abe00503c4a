// Cancellation, live updates and the advertised features, without the
// bundle: a fake executeToolCall stands in for Qwen's scheduler. (The
// update text and progress numbering are common/updates.mjs's, tested there.)

import assert from 'node:assert/strict';
import test from 'node:test';

import { startCall } from '../lib/calls.mjs';
import { adapterFeatures } from '../lib/features.mjs';

test('shell_pty only when a node-pty loaded and the Config chose the pty', () => {
  assert.equal(adapterFeatures({ ptyLoaded: true, ptyChosen: true }).includes('shell_pty'), true);
  assert.equal(adapterFeatures({ ptyLoaded: false, ptyChosen: true }).includes('shell_pty'), false);
  assert.equal(adapterFeatures({ ptyLoaded: true, ptyChosen: false }).includes('shell_pty'), false);
  for (const feature of ['cancel', 'updates', 'confirm']) assert.ok(adapterFeatures({}).includes(feature));
});

/** A scheduler that reports `chunk` for its call and another's, then waits for its signal. */
function streamingScheduler(seen) {
  return (_config, request, signal, options) => {
    seen.signal = signal;
    options.outputUpdateHandler?.(request.callId, 'mine');
    options.outputUpdateHandler?.('someone-else', 'theirs');
    return new Promise((resolve) => {
      const finish = () => {
        options.onAllToolCallsComplete?.([{ request, status: 'cancelled' }]);
        resolve({ callId: request.callId, responseParts: [] });
      };
      if (signal.aborted) finish();
      else signal.addEventListener('abort', finish, { once: true });
    });
  };
}

test("the request's signal cancels the call, and only the call's own updates reach onOutput", async () => {
  const seen = {};
  const outputs = [];
  const request = new AbortController();
  const call = startCall(streamingScheduler(seen), 'cfg', { callId: 'c1' }, { signal: request.signal, onOutput: (c) => outputs.push(c) });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(outputs, ['mine']);
  request.abort(new Error('user pressed Esc'));
  const event = await call.next();
  assert.equal(event.status, 'cancelled');
  assert.equal(seen.signal.reason.message, 'user pressed Esc');
});

test('a call whose request was cancelled before it started gets an aborted signal', async () => {
  const seen = {};
  const request = new AbortController();
  request.abort(new Error('early'));
  const call = startCall(streamingScheduler(seen), 'cfg', { callId: 'c2' }, { signal: request.signal });
  await call.next();
  assert.equal(seen.signal.aborted, true);
});
