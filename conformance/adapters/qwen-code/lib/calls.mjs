// One tools/call through Qwen's scheduler, driven the way Qwen's own hosts
// drive it (its interactive UI, its ACP agent): the call runs until it
// finishes or parks at `awaiting_approval`; a parked call goes on when the
// `onConfirm` of its confirmation details is called. Each call has its own
// AbortController, so one call can be cancelled without touching another.
// Qwen's `executeToolCall` is passed in, so this is tested without the bundle.

import { followSignal, InFlight as CallEvents } from '../../common/calls.mjs';

export { followSignal };

/**
 * A call in flight (common/calls.mjs) as Qwen parks it: a question is the
 * `onConfirm` of its details. Qwen re-sends a parked call's details on
 * unrelated updates, and an inline modify passes through
 * `awaiting_approval` once more with the same `onConfirm` before it runs:
 * neither is a new question. `next()`'s `done` is `{kind: 'done',
 * response, status}` (Qwen's final `success` / `error` / `cancelled`).
 */
export class InFlight extends CallEvents {
  constructor(callId) {
    super(callId, { question: (event) => event.details.onConfirm });
  }

  /** Answers the park with Qwen's `onConfirm(outcome, payload)`. */
  answer(outcome, payload) {
    return super.answer((event) => event.details.onConfirm(outcome, payload));
  }
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
