// toolpass/batch's pure parts, without the Qwen bundle: the refusals, a
// batch driven through a scheduler shaped like Qwen's CoreToolScheduler
// (one schedule of every call, parks that hold the whole batch, one signal,
// a finalizer between the last call and onAllToolCallsComplete), the
// budget's account, and the call.rendezvous barrier.

import assert from 'node:assert/strict';
import test from 'node:test';

import { batchCalls, callOutcome, QwenBatch } from '../lib/batch.mjs';
import { batchAccount, textUnits } from '../lib/budget.mjs';
import { Faults } from '../lib/faults.mjs';

const output = (text) => ({ responseParts: [{ functionResponse: { response: { output: text } } }] });
const request = (callId, name = 'read_file') => ({ callId, name, args: {}, prompt_id: 's-1' });
const config = (budget) => ({ getToolOutputBatchBudget: () => budget });

/**
 * A CoreToolScheduler as Qwen's behaves for these tests: a call named
 * `edit` parks until its onConfirm is called, and while one parks no call
 * runs (attemptExecutionOfScheduledCalls); the others answer `ran <id>`.
 * Its finalizer cuts every text to at most `cut` characters.
 */
function fakeScheduler({ cut = Infinity, log = [] } = {}) {
  return class {
    constructor(options) {
      this.options = options;
      this.calls = [];
    }

    notify() {
      this.options.onToolCallsUpdate([...this.calls]);
    }

    set(callId, fields) {
      const i = this.calls.findIndex((c) => c.request.callId === callId);
      this.calls[i] = { ...this.calls[i], ...fields };
      this.notify();
    }

    async schedule(requests, signal) {
      signal.addEventListener('abort', () => {
        for (const c of this.calls) {
          if (c.status === 'awaiting_approval' || c.status === 'scheduled') this.set(c.request.callId, { status: 'cancelled', response: output('cancelled') });
        }
        this.complete();
      });
      for (const r of requests) {
        this.calls.push({ request: r, status: 'validating' });
        if (r.name === 'edit') {
          const onConfirm = async (outcome) => {
            log.push([r.callId, outcome]);
            if (outcome === 'cancel') this.set(r.callId, { status: 'cancelled', response: output('declined') });
            else this.set(r.callId, { status: 'scheduled' });
            await this.run();
          };
          this.set(r.callId, { status: 'awaiting_approval', confirmationDetails: { type: 'exec', title: `ask ${r.callId}`, command: 'x', rootCommand: 'x', onConfirm } });
        } else {
          this.set(r.callId, { status: 'scheduled' });
        }
      }
      await this.run();
    }

    async run() {
      if (this.calls.some((c) => c.status === 'awaiting_approval')) return;
      for (const c of this.calls.filter((c) => c.status === 'scheduled')) {
        log.push(['run', c.request.callId]);
        this.set(c.request.callId, { status: 'success', response: output(`ran ${c.request.callId}`), invocation: c.request.callId });
      }
      void this.complete();
    }

    async complete() {
      if (this.done || !this.calls.every((c) => ['success', 'error', 'cancelled'].includes(c.status))) return;
      this.done = true;
      const finalized = await this.applyBatchOutputBudget(this.calls);
      await this.options.onAllToolCallsComplete(finalized);
    }

    async applyBatchOutputBudget(calls) {
      return calls.map((c) => {
        const text = c.response.responseParts[0].functionResponse.response.output;
        return text.length > cut ? { ...c, response: output(text.slice(0, cut)) } : c;
      });
    }
  };
}

const observed = { resultFilePaths: (call) => (call.invocation ? [`/files/${call.invocation}`] : undefined), classifierInput: () => ({ seen: true }) };
const llm = (outcome) => outcome._meta.toolpass.llmContent;

test('an empty batch, a malformed call, an id twice or an id in flight is refused, naming the call', () => {
  const refused = (params, inFlight, pattern) =>
    assert.throws(() => batchCalls(params, inFlight), (e) => e.code === -32602 && pattern.test(e.message));
  refused({ sessionId: 's', calls: [] }, new Map(), /non-empty array/);
  refused({ sessionId: 's' }, new Map(), /non-empty array/);
  refused({ sessionId: 's', calls: [{ callId: 'a', name: 'glob', arguments: [] }] }, new Map(), /calls\[0\] \(a\): arguments must be an object/);
  refused({ sessionId: 's', calls: [{ name: 'glob' }] }, new Map(), /calls\[0\]: callId/);
  const twice = [{ callId: 'a', name: 'glob' }, { callId: 'b', name: 'glob' }, { callId: 'a', name: 'read_file' }];
  refused({ sessionId: 's', calls: twice }, new Map(), /calls\[2\]: call id a comes twice/);
  refused({ sessionId: 's', calls: [{ callId: 'p', name: 'glob' }] }, new Map([['p', {}]]), /call p is still in flight in session s/);
  assert.equal(batchCalls({ sessionId: 's', calls: [{ callId: 'a', name: 'glob' }] }, new Map()).length, 1);
});

test("a batch is answered in order after Qwen's finalizer, with the account of what it cut", async () => {
  const batch = new QwenBatch(fakeScheduler({ cut: 6 }), config(100), [request('a'), request('long-one'), request('c')]);
  const settled = await batch.start();
  assert.equal(settled.kind, 'done');
  const outcomes = ['a', 'long-one', 'c'].map((id) => callOutcome(batch, settled, id, observed));
  assert.deepEqual(outcomes.map(llm), ['ran a', 'ran lo', 'ran c']);
  assert.deepEqual(outcomes[0]._meta.toolpass.resultFilePaths, ['/files/a']);
  // 5 + 12 + 5 before, 5 + 6 + 5 after; one result changed.
  assert.deepEqual(settled.account, { budget: 100, before: 22, after: 16, reduced: 1 });
});

test('no account without a budget: Qwen then leaves the batch alone', async () => {
  const batch = new QwenBatch(fakeScheduler(), config(Number.POSITIVE_INFINITY), [request('a')]);
  assert.equal((await batch.start()).account, undefined);
});

test('a call that asks holds the whole batch until it is answered, as Qwen does', async () => {
  const log = [];
  const batch = new QwenBatch(fakeScheduler({ log }), config(100), [request('e', 'edit'), request('r')]);
  const held = await batch.start();
  assert.equal(held.kind, 'held');
  assert.deepEqual(log, [], 'nothing ran');
  const parked = callOutcome(batch, held, 'e', observed)._meta.toolpass;
  assert.equal(parked.status, 'awaiting_confirmation');
  assert.equal(parked.confirmation.title, 'ask e');
  assert.deepEqual(parked.classifierInput, { seen: true });
  const waiting = callOutcome(batch, held, 'r', observed)._meta.toolpass;
  assert.equal(waiting.status, 'error');
  assert.equal(waiting.error.code, 'unknown');
  assert.match(waiting.error.message, /^held: .*attemptExecutionOfScheduledCalls.*once e is answered$/);
  assert.equal(batch.parked('r'), undefined);
  const done = await batch.answer('e', 'proceed_once');
  assert.equal(done.kind, 'done');
  assert.deepEqual(log, [['e', 'proceed_once'], ['run', 'e'], ['run', 'r']]);
  assert.equal(llm(callOutcome(batch, done, 'e', observed)), 'ran e');
  assert.equal(batch.parked('e'), undefined, 'a completed batch parks nothing');
});

test('two calls that ask: the first answered stays held until the second is', async () => {
  const batch = new QwenBatch(fakeScheduler(), config(100), [request('e1', 'edit'), request('e2', 'edit')]);
  await batch.start();
  const first = await batch.answer('e1', 'proceed_once');
  assert.equal(first.kind, 'held');
  assert.match(callOutcome(batch, first, 'e1', observed)._meta.toolpass.error.message, /once e2 is answered/);
  const second = await batch.answer('e2', 'cancel');
  assert.equal(second.kind, 'done');
  assert.equal(callOutcome(batch, second, 'e2', observed)._meta.toolpass.status, 'cancelled');
  assert.equal(llm(callOutcome(batch, second, 'e1', observed)), 'ran e1');
});

test("cancelling a held batch cancels every call through Qwen's one signal", async () => {
  const batch = new QwenBatch(fakeScheduler(), config(100), [request('e', 'edit'), request('r')]);
  await batch.start();
  const controller = new AbortController();
  batch.follow(controller.signal);
  const settling = batch.settle(new Promise(() => {}));
  controller.abort(new Error('client cancelled'));
  const done = await settling;
  assert.equal(done.kind, 'done');
  assert.deepEqual(['e', 'r'].map((id) => callOutcome(batch, done, id, observed)._meta.toolpass.status), ['cancelled', 'cancelled']);
});

test('a scheduler that throws before any call ends fails the batch', async () => {
  class Broken {
    applyBatchOutputBudget() {}
    async schedule() {
      throw new Error('boom');
    }
  }
  const settled = await new QwenBatch(Broken, config(100), [request('a')]).start();
  assert.equal(settled.kind, 'failed');
  assert.match(settled.error.message, /boom/);
});

test("the account counts Qwen's text slots: text parts, outputs and errors, in UTF-16 units", () => {
  assert.equal(textUnits([{ text: 'ab' }, { functionResponse: { response: { output: '😀', error: 'xyz' } } }, { inlineData: {} }]), 7);
  assert.equal(textUnits(undefined), 0);
  const call = (text) => ({ response: output(text) });
  assert.deepEqual(batchAccount(10, [call('abc'), call('de')], [call('abc'), call('de')]), { budget: 10, before: 5, after: 5, reduced: 0 });
  assert.equal(batchAccount(0, [], []), undefined);
});

test('call.rendezvous: armed calls go on together, a call alone fails after the wait, skipped calls pass', async () => {
  const faults = new Faults(50);
  assert.equal(await faults.meet(), undefined, 'unarmed');
  faults.arm({ point: 'call.rendezvous', times: 2, skip: 1 });
  assert.equal(await faults.meet(), undefined, 'skipped');
  assert.deepEqual(await Promise.all([faults.meet(), faults.meet()]), [undefined, undefined]);
  assert.equal(await faults.meet(), undefined, 'used up');
  faults.arm({ point: 'call.rendezvous', times: 2 });
  assert.equal(await faults.meet(), 'call.rendezvous: 1 of 2 calls had started after 0.05 s; the calls armed to meet did not run at once');
  assert.throws(() => faults.arm({ point: 'call.rendezvous', times: -1 }), /times must be a whole number/);
});
