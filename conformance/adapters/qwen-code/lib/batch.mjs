// toolpass/batch on Qwen's own turn machinery: every call of the batch goes
// into ONE CoreToolScheduler through `schedule(requests, signal)`, as
// Qwen's hosts schedule a model turn's calls, so Qwen's partitioning
// (`partitionToolCalls`, `runConcurrently`), its per-call gates and its
// batch budget (`applyBatchOutputBudget` -> `finalizeToolResponses`) all
// apply. The scheduler class is passed in, so this is tested without the
// bundle.

import { RpcError } from '../../common/framing.mjs';
import { envelope } from '../../common/outcome.mjs';
import { batchAccount } from './budget.mjs';
import { followSignal } from './calls.mjs';
import { toConfirmation } from './confirmation.mjs';
import { awaitingOutcome } from '../../common/outcome.mjs';
import { toOutcome } from './outcome.mjs';

/** Qwen's terminal states of a call. */
const FINAL = new Set(['success', 'error', 'cancelled']);

/**
 * The calls of a `toolpass/batch`, refused (-32602, naming the call) when
 * the batch is empty, a call is malformed, an id comes twice (Qwen's
 * `dedupeRequestsByCallId` would silently drop the second) or an id is a
 * call still in flight in the session (`inFlight`). Nothing has run then.
 */
export function batchCalls(params, inFlight) {
  const calls = params?.calls;
  if (!Array.isArray(calls) || calls.length === 0) {
    throw new RpcError(-32602, 'toolpass/batch needs calls: a non-empty array of {callId, name, arguments}');
  }
  const seen = new Set();
  calls.forEach((call, i) => {
    const where = `calls[${i}]`;
    if (typeof call?.callId !== 'string' || call.callId === '') throw new RpcError(-32602, `${where}: callId must be a non-empty string`);
    if (typeof call.name !== 'string') throw new RpcError(-32602, `${where} (${call.callId}): name must be a string`);
    const args = call.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      throw new RpcError(-32602, `${where} (${call.callId}): arguments must be an object`);
    }
    if (seen.has(call.callId)) throw new RpcError(-32602, `${where}: call id ${call.callId} comes twice in the batch`);
    if (inFlight.has(call.callId)) throw new RpcError(-32602, `${where}: call ${call.callId} is still in flight in session ${params.sessionId}`);
    seen.add(call.callId);
  });
  return calls;
}

/**
 * One batch in one CoreToolScheduler. `start()` and `answer()` resolve
 * with what Qwen did once it has done all it can: `{kind: 'done', calls,
 * account}` (its `onAllToolCallsComplete`, after the batch budget),
 * `{kind: 'held'}` (a call awaits approval, and Qwen runs no call of the
 * batch until every call is answered: `attemptExecutionOfScheduledCalls`
 * returns while one awaits) or `{kind: 'failed', error}`.
 */
export class QwenBatch {
  constructor(Scheduler, config, requests) {
    this.requests = requests;
    this.config = config;
    this.controller = new AbortController();
    /** callId -> the call as Qwen last reported it (`onToolCallsUpdate`). */
    this.latest = new Map();
    this.completed = undefined;
    this.account = undefined;
    this.finished = new Promise((resolve) => (this.finish = resolve));
    this.scheduler = new Scheduler({
      config,
      // As Qwen's executeToolCall builds it for its non-interactive hosts.
      chatRecordingService: config.getChatRecordingService?.(),
      onToolCallsUpdate: (calls) => {
        for (const call of calls) this.latest.set(call.request.callId, call);
      },
      onAllToolCallsComplete: async (calls) => {
        this.completed = calls;
        this.finish();
      },
      getPreferredEditor: () => undefined,
      onEditorClose: () => {},
    });
    this.observeFinalizer();
  }

  /**
   * The account is taken at Qwen's finalizer: its `applyBatchOutputBudget`
   * on this scheduler is wrapped to see the calls that go in and come out,
   * passed through untouched. Qwen calls it once per completed batch (twice
   * when a PostToolBatch hook runs; the first input and the last output
   * then make the account).
   */
  observeFinalizer() {
    const apply = this.scheduler.applyBatchOutputBudget.bind(this.scheduler);
    let input;
    this.scheduler.applyBatchOutputBudget = async (calls) => {
      input ??= calls;
      const output = await apply(calls);
      this.account = batchAccount(this.config.getToolOutputBatchBudget?.(), input, output);
      return output;
    };
  }

  start() {
    return this.settle(this.scheduler.schedule(this.requests, this.controller.signal));
  }

  /** The call as Qwen last reported it, undefined before it is validated. */
  state(callId) {
    return this.latest.get(callId);
  }

  /** The confirmation details `callId` is parked on, if it is. */
  parked(callId) {
    const call = this.latest.get(callId);
    return !this.completed && call?.status === 'awaiting_approval' ? call.confirmationDetails : undefined;
  }

  /** Answers a parked call with Qwen's `onConfirm(outcome, payload)`. */
  answer(callId, outcome, payload) {
    const details = this.parked(callId);
    return this.settle(Promise.resolve().then(() => details.onConfirm(outcome, payload)));
  }

  /**
   * Aborts the batch: Qwen's batch has one signal (a turn's), and on abort
   * it cancels every call still awaiting approval or scheduled
   * (`drainSpansForBatch`) and the running ones through their signal.
   */
  cancel(reason) {
    this.controller.abort(reason);
  }

  /** Cancels the batch when `signal` (a request's) aborts. */
  follow(signal) {
    followSignal(signal, (reason) => this.cancel(reason));
  }

  /** Waits for `step` (Qwen's schedule or onConfirm), then says where Qwen stands. */
  async settle(step) {
    let error;
    await Promise.race([step.catch((e) => (error = e ?? new Error('Qwen failed the batch'))), this.finished]);
    if (this.completed) return this.done();
    const calls = this.requests.map((r) => this.latest.get(r.callId));
    if (calls.some((c) => c?.status === 'awaiting_approval')) return { kind: 'held' };
    if (calls.every((c) => FINAL.has(c?.status)) || error === undefined) {
      // Every call ended (or runs on): Qwen's completion, with the batch
      // budget, follows.
      await this.finished;
      return this.done();
    }
    return { kind: 'failed', error };
  }

  done() {
    return { kind: 'done', calls: this.completed, account: this.account };
  }
}

/**
 * The Outcome of a call Qwen holds: not run, not asking, waiting for the
 * calls of its batch that await approval. toolpass/1 has no status for it,
 * so it is an `unknown` error that says what is going on; Qwen runs it once
 * those calls are answered, and no reply then carries its result.
 */
export function heldOutcome(waitingFor) {
  const message =
    `held: Qwen's CoreToolScheduler runs no call of a batch while another awaits approval ` +
    `(attemptExecutionOfScheduledCalls); this call runs, unreported, once ${waitingFor.join(', ')} ` +
    `${waitingFor.length === 1 ? 'is' : 'are'} answered`;
  return envelope({ status: 'error', llmContent: message, error: { code: 'unknown', message } });
}

/** The ids of the batch's calls parked at a confirmation. */
export function parkedIds(batch) {
  return batch.requests.map((r) => r.callId).filter((id) => batch.parked(id));
}

/**
 * The Outcome of one call of `batch` as Qwen stands (`settled`, from
 * `start` or `answer`): its final response after the batch budget when the
 * batch is done; its confirmation when it is parked; held otherwise.
 * `observed.resultFilePaths(call)` is the files its tool's result named,
 * `observed.classifierInput(request)` what Qwen's classifier would see of a
 * parked call. A confirmation toolpass/1 has no form for is an Error.
 */
export function callOutcome(batch, settled, callId, observed) {
  const final = settled.kind === 'done' ? settled.calls.find((c) => c.request?.callId === callId) : undefined;
  const call = final ?? batch.state(callId);
  if (FINAL.has(call?.status)) {
    return toOutcome(call.response, { status: call.status, resultFilePaths: observed.resultFilePaths(call) });
  }
  if (call?.status === 'awaiting_approval') {
    const confirmation = toConfirmation(call.confirmationDetails);
    if (confirmation instanceof Error) return confirmation;
    return awaitingOutcome(confirmation, observed.classifierInput(call.request));
  }
  return heldOutcome(parkedIds(batch));
}
