// A tool call in flight through a scheduler of the Gemini CLI family (Qwen
// Code's, Gemini CLI's), which runs it until it finishes or parks it at
// `awaiting_approval` until a host answers: the events that happen to it, in
// order, and its own AbortController, so one call can be cancelled without
// touching another. How a park is answered is the peer's (Qwen: the details'
// `onConfirm`; Gemini: a response on its message bus), so `answer` takes it.
// Pure, so it is tested without a peer.

import { RpcError } from './framing.mjs';
import { awaitingOutcome } from './outcome.mjs';

/**
 * `next()` resolves with the next thing that happened to the call:
 * `{kind: 'awaiting', details, ...}` (parked; the peer's confirmation
 * details and whatever else answering needs), `{kind: 'done', ...}` (the
 * peer's final state) or `{kind: 'failed', error}` (the scheduler threw).
 * `question(event)` names what a park asks: a park whose question was
 * reported already is no new one (both peers re-send a parked call's state
 * on unrelated updates).
 */
export class InFlight {
  constructor(callId, { question = (event) => event.details } = {}) {
    this.callId = callId;
    this.controller = new AbortController();
    /** The confirmation details the call is parked on, if it is. */
    this.parked = undefined;
    this.waiting = undefined;
    this.events = [];
    this.wake = undefined;
    this.question = question;
    this.asked = new Set();
  }

  push(event) {
    if (event.kind === 'awaiting') {
      const question = this.question(event);
      if (this.asked.has(question)) return;
      this.asked.add(question);
    }
    const wake = this.wake;
    this.wake = undefined;
    if (wake) wake(event);
    else this.events.push(event);
  }

  /** The next event; a park is remembered in `parked`. */
  async next() {
    const event = this.events.length > 0 ? this.events.shift() : await new Promise((resolve) => (this.wake = resolve));
    if (event.kind === 'awaiting') {
      this.parked = event.details;
      this.waiting = event;
    }
    return event;
  }

  /**
   * Answers the park with `respond(event)`, the awaiting event, and resolves
   * with what happens next. What `respond` returns is not waited for (Qwen's
   * `onConfirm` resolves only once the call has run); if it fails, the call
   * has failed.
   */
  answer(respond) {
    const event = this.waiting;
    this.parked = undefined;
    this.waiting = undefined;
    Promise.resolve()
      .then(() => respond(event))
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
 * Refuses a `tools/call` whose call id is still in flight in the session
 * (a retry of a parked or running call): invalid params naming both ids.
 */
export function refuseInFlight(inFlight, callId, sessionId) {
  if (inFlight.has(callId)) throw new RpcError(-32602, `call ${callId} is still in flight in session ${sessionId}`);
}

/**
 * The call of `inFlight` that a `toolpass/confirm` names, which must be
 * parked; otherwise an invalid-params error naming the call and session.
 */
export function parkedCall(inFlight, { sessionId, callId }) {
  const call = inFlight.get(callId);
  if (!call?.parked) throw new RpcError(-32602, `no call ${callId} awaits confirmation in session ${sessionId}`);
  return call;
}

/**
 * What a call's `event` answers when it is a park: the awaiting Outcome of
 * `toConfirmation(details)` (with `classifierInput()`, when given), or, for
 * a park toolpass/1 has no form for (`toConfirmation` returned an Error),
 * the call cancelled, `forget()` run and an internal error naming it.
 * `undefined` for an event that is no park.
 */
export function parkOutcome(event, call, { toConfirmation, forget, classifierInput }) {
  if (event.kind !== 'awaiting') return undefined;
  const confirmation = toConfirmation(event.details);
  if (!(confirmation instanceof Error)) return awaitingOutcome(confirmation, classifierInput?.());
  call.cancel(confirmation);
  forget();
  throw new RpcError(-32603, confirmation.message);
}
