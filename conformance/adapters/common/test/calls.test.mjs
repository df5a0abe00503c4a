// The call-in-flight event queue and the confirmation forms both peers of
// the Gemini CLI family share, without a peer.

import assert from 'node:assert/strict';
import test from 'node:test';

import { InFlight, parkedCall, parkOutcome, refuseInFlight } from '../calls.mjs';
import { sharedConfirmation, toQuestion } from '../confirmation.mjs';

test('a park is reported once per question, and its answer is what happens next', async () => {
  const call = new InFlight('c1', { question: (event) => event.id });
  call.push({ kind: 'awaiting', id: 'q1', details: { type: 'exec' } });
  call.push({ kind: 'awaiting', id: 'q1', details: { type: 'exec' } });
  const parked = await call.next();
  assert.deepEqual([parked.id, call.parked], ['q1', { type: 'exec' }]);
  const answered = call.answer((event) => {
    assert.equal(event.id, 'q1', 'respond gets the awaiting event');
    call.push({ kind: 'done', status: 'success' });
  });
  assert.equal(call.parked, undefined);
  assert.deepEqual(await answered, { kind: 'done', status: 'success' });
});

test('an answer that fails is the call failing; a cancel aborts its own signal only', async () => {
  const call = new InFlight('c1');
  call.push({ kind: 'awaiting', details: {} });
  await call.next();
  const failed = await call.answer(() => Promise.reject(new Error('bus gone')));
  assert.deepEqual([failed.kind, failed.error.message], ['failed', 'bus gone']);
  const request = new AbortController();
  call.follow(request.signal);
  const other = new InFlight('c2');
  request.abort(new Error('Esc'));
  assert.equal(call.controller.signal.reason.message, 'Esc');
  assert.equal(other.controller.signal.aborted, false);
});

test('the shared confirmation types map; any other is left to the adapter', () => {
  assert.deepEqual(sharedConfirmation({ type: 'exec', title: 'T', command: 'ls', rootCommand: 'ls', rootCommands: ['ls'] }), {
    type: 'exec',
    title: 'T',
    command: 'ls',
    rootCommand: 'ls',
  });
  assert.equal(sharedConfirmation({ type: 'plan', title: 'T' }), undefined);
  assert.deepEqual(toQuestion({ question: 'Q?', options: [{ label: 'a' }] }), {
    question: 'Q?',
    header: '',
    options: [{ label: 'a', description: '' }],
    multiSelect: false,
  });
});

test('a confirm finds only a parked call; a park answers awaiting, or cancels and names a form toolpass/1 lacks', async () => {
  const inFlight = new Map();
  assert.throws(() => parkedCall(inFlight, { sessionId: 's1', callId: 'c1' }), (e) => e.code === -32602 && /no call c1 awaits confirmation in session s1/.test(e.message));
  const call = new InFlight('c1');
  inFlight.set('c1', call);
  assert.throws(() => refuseInFlight(inFlight, 'c1', 's1'), (e) => e.code === -32602 && /call c1 is still in flight in session s1/.test(e.message));
  assert.throws(() => parkedCall(inFlight, { sessionId: 's1', callId: 'c1' }), /no call c1 awaits/);
  call.push({ kind: 'awaiting', details: { type: 'exec' } });
  const event = await call.next();
  assert.equal(parkedCall(inFlight, { sessionId: 's1', callId: 'c1' }), call);
  const forget = () => inFlight.delete('c1');
  const shown = { type: 'exec', title: 't', command: 'ls', rootCommand: 'ls' };
  const parked = parkOutcome(event, call, { toConfirmation: () => shown, forget, classifierInput: () => ({ command: 'ls' }) });
  assert.deepEqual(parked._meta.toolpass, { status: 'awaiting_confirmation', llmContent: '', confirmation: shown, classifierInput: { command: 'ls' } });
  assert.equal(inFlight.has('c1'), true, 'a park keeps the call in flight');
  assert.equal(parkOutcome({ kind: 'done' }, call, { toConfirmation: () => shown, forget }), undefined);
  const lacking = () => new Error('a type toolpass/1 has no form for');
  assert.throws(() => parkOutcome(event, call, { toConfirmation: lacking, forget }), (e) => e.code === -32603 && /no form for/.test(e.message));
  assert.equal(call.controller.signal.aborted, true, 'the call is cancelled');
  assert.equal(inFlight.has('c1'), false, 'and forgotten');
});
