// One tools/call through Gemini CLI's real `Scheduler`, driven as Gemini's
// own hosts drive it (its CLI's ToolActionsContext, its ACP agent): the
// scheduler publishes every state of its calls as TOOL_CALLS_UPDATE on the
// session's message bus; a call parked at `awaiting_approval` carries its
// `confirmationDetails` and a `correlationId`, and goes on when a
// TOOL_CONFIRMATION_RESPONSE with that id is published on the same bus.
// Each call gets a Scheduler of its own: a scheduler holds every later call
// in its queue while one of its calls awaits approval, and toolpass sessions
// answer out of band (SPEC.md confirm.no-lock). Gemini's module (`Scheduler`,
// `MessageBusType`) is passed in, so this is tested without the package.

import { InFlight } from '../../common/calls.mjs';

/**
 * A call in flight (common/calls.mjs) as Gemini parks it: a question is the
 * `correlationId` Gemini mints each time it asks. `next()`'s `done` is
 * `{kind: 'done', done}`, the completed call `Scheduler.schedule` resolved
 * with.
 */
export class GeminiCall extends InFlight {
  constructor(callId, bus, types) {
    super(callId, { question: (event) => event.correlationId });
    this.bus = bus;
    this.types = types;
  }

  /**
   * Answers the park as Gemini's CLI does (ToolActionsContext `confirm`):
   * `confirmed` unless cancelled, Gemini's `outcome` and its `payload`.
   */
  answer(outcome, payload) {
    return super.answer(({ correlationId }) =>
      this.bus.publish({
        type: this.types.TOOL_CONFIRMATION_RESPONSE,
        correlationId,
        confirmed: outcome !== 'cancel',
        requiresUserConfirmation: false,
        outcome,
        ...(payload ? { payload } : {}),
      }),
    );
  }
}

/**
 * Starts `request` on a new `gemini.Scheduler` of `config` named
 * `schedulerId` and returns its GeminiCall. `signal` (the request's)
 * cancels it; `onOutput(liveOutput)` gets each new live output of the call.
 * The scheduler is disposed once the call is done.
 */
export function startCall(gemini, config, request, { schedulerId, signal, onOutput } = {}) {
  const types = gemini.MessageBusType;
  const bus = config.getMessageBus();
  const call = new GeminiCall(request.callId, bus, types);
  call.follow(signal);
  let lastOutput;
  const listener = (message) => {
    if (message.schedulerId !== schedulerId) return;
    const mine = message.toolCalls?.find((c) => c.request?.callId === request.callId);
    if (mine?.status === 'awaiting_approval') {
      call.push({ kind: 'awaiting', details: mine.confirmationDetails, correlationId: mine.correlationId });
    }
    const live = mine?.liveOutput;
    if (onOutput && live !== undefined && live !== lastOutput) {
      lastOutput = live;
      onOutput(live);
    }
  };
  bus.subscribe(types.TOOL_CALLS_UPDATE, listener);
  const scheduler = new gemini.Scheduler({ context: config, schedulerId, getPreferredEditor: () => undefined });
  Promise.resolve()
    .then(() => scheduler.schedule([request], call.controller.signal))
    .then(
      ([done]) => call.push({ kind: 'done', done }),
      (error) => call.push({ kind: 'failed', error }),
    )
    .finally(() => {
      bus.unsubscribe(types.TOOL_CALLS_UPDATE, listener);
      scheduler.dispose();
    });
  return call;
}
