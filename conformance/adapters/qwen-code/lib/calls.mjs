// One tools/call through Qwen's scheduler, driven the way Qwen's own hosts
// drive it (its interactive UI, its ACP agent): the call runs until it
// finishes or parks at `awaiting_approval`; a parked call goes on when the
// `onConfirm` of its confirmation details is called. Each call has its own
// AbortController, so one call can be cancelled without touching another.
// Qwen's `executeToolCall` is passed in, so this is tested without the bundle.

/**
 * A call in flight. `next()` resolves with the next thing that happened to
 * it: `{kind: 'awaiting', details}` (parked), `{kind: 'done', response,
 * status}` (Qwen's final `success` / `error` / `cancelled`) or
 * `{kind: 'failed', error}` (the scheduler itself threw).
 */
export class InFlight {
  constructor(callId) {
    this.callId = callId;
    this.controller = new AbortController();
    /** The confirmation details the call is parked on, if it is. */
    this.parked = undefined;
    this.events = [];
    this.wake = undefined;
    // Every `onConfirm` already reported. Qwen re-sends a parked call's
    // details on unrelated updates, and an inline modify passes through
    // `awaiting_approval` once more with the same `onConfirm` before it runs:
    // neither is a new question.
    this.asked = new Set();
  }

  push(event) {
    if (event.kind === 'awaiting') {
      if (this.asked.has(event.details.onConfirm)) return;
      this.asked.add(event.details.onConfirm);
    }
    const wake = this.wake;
    this.wake = undefined;
    if (wake) wake(event);
    else this.events.push(event);
  }

  /** The next event; a park is remembered in `parked`. */
  async next() {
    const event = this.events.length > 0 ? this.events.shift() : await new Promise((resolve) => (this.wake = resolve));
    if (event.kind === 'awaiting') this.parked = event.details;
    return event;
  }

  /**
   * Answers the park with Qwen's `onConfirm(outcome, payload)` and resolves
   * with what happens next. `onConfirm` itself resolves only after the call
   * has run, so it is not waited for here.
   */
  answer(outcome, payload) {
    const details = this.parked;
    this.parked = undefined;
    Promise.resolve()
      .then(() => details.onConfirm(outcome, payload))
      .catch((error) => this.push({ kind: 'failed', error }));
    return this.next();
  }

  /** Aborts the call, running or parked, through its signal. */
  cancel(reason) {
    this.controller.abort(reason);
  }

  /**
   * Cancels the call when `signal` aborts: the signal of the request that
   * started it or of the `toolpass/confirm` that runs it, which the
   * client's `notifications/cancelled` aborts. One already aborted cancels
   * at once.
   */
  follow(signal) {
    followSignal(signal, (reason) => this.cancel(reason));
  }
}

/** Calls `cancel(reason)` when `signal` aborts, at once if it has. */
export function followSignal(signal, cancel) {
  if (!signal) return;
  if (signal.aborted) cancel(signal.reason);
  else signal.addEventListener('abort', () => cancel(signal.reason), { once: true });
}

/**
 * Starts `request` through `execute(config, request, signal, options)`
 * (Qwen's `executeToolCall`) and returns its InFlight. `signal` (the
 * request's) cancels it, before it starts too (Qwen then answers "Tool call
 * cancelled before execution." and runs nothing); `onOutput(chunk)` gets
 * each live output update of the call (Qwen's `outputUpdateHandler`).
 */
export function startCall(execute, config, request, { signal, onOutput } = {}) {
  const call = new InFlight(request.callId);
  call.follow(signal);
  let status;
  const options = {
    outputUpdateHandler: onOutput
      ? (callId, chunk) => {
          if (callId === request.callId) onOutput(chunk);
        }
      : undefined,
    onToolCallsUpdate: (calls) => {
      const mine = calls.find((c) => c.request?.callId === request.callId);
      if (mine?.status === 'awaiting_approval') call.push({ kind: 'awaiting', details: mine.confirmationDetails });
    },
    onAllToolCallsComplete: (completed) => {
      status = completed.find((c) => c.request?.callId === request.callId)?.status;
    },
  };
  Promise.resolve()
    .then(() => execute(config, request, call.controller.signal, options))
    .then(
      (response) => call.push({ kind: 'done', response, status }),
      (error) => call.push({ kind: 'failed', error }),
    );
  return call;
}
