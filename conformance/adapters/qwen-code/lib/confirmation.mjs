// Qwen Code's confirmations <-> toolpass/1's: what the scheduler parks a
// call with (`ToolCallConfirmationDetails`) becomes an Outcome's
// `confirmation`, and a `toolpass/confirm` becomes the
// `onConfirm(outcome, payload)` Qwen's own hosts call. Pure, so it is
// tested without the bundle.

import { sharedConfirmation, toQuestion } from '../../common/confirmation.mjs';
import { RpcError } from '../../common/framing.mjs';

/**
 * Qwen's confirmation details -> a toolpass Confirmation, or an Error naming
 * a type toolpass/1 has no form for. `edit`, `exec`, `mcp` and `info` are
 * the forms Qwen kept from Gemini CLI (common/confirmation.mjs).
 */
export function toConfirmation(details) {
  const shared = sharedConfirmation(details);
  if (shared) return shared;
  const { type, title } = details;
  switch (type) {
    // exit_plan_mode's yes or no on a plan: toolpass/1 has no plan form, and
    // `info` is its "anything else that needs a yes or no".
    case 'plan':
      return { type: 'info', title, prompt: details.plan ?? '' };
    case 'ask_user_question':
      return { type, title, questions: (details.questions ?? []).map(toQuestion) };
    default:
      return new Error(`Qwen asked for a confirmation of type ${JSON.stringify(type)}, which toolpass/1 has no form for`);
  }
}

/**
 * A `toolpass/confirm`'s answer -> Qwen's `[outcome, payload]` for the
 * parked call's `onConfirm`. `modify` is Qwen's inline modify (what its IDE
 * and ACP hosts send): `proceed_once` with the user's content as
 * `payload.newContent`; a confirmation that hides modify (sed's) refuses it.
 */
export function toQwenAnswer(params, details) {
  const { outcome, modifiedContent, answers } = params;
  // Answers belong to questions: Qwen's other confirmations would ignore
  // them, and toolpass/1 refuses them rather than let them pass unnoticed.
  if (answers !== undefined && answers !== null && details.type !== 'ask_user_question') {
    throw new RpcError(-32602, `answers go with an ask_user_question confirmation, not this ${details.type} one (${details.title})`);
  }
  const payload = {};
  if (answers && Object.keys(answers).length > 0) payload.answers = answers;
  switch (outcome) {
    case 'proceed_once':
    case 'proceed_always':
    case 'cancel':
      return [outcome, Object.keys(payload).length > 0 ? payload : undefined];
    case 'modify':
      if (details.type !== 'edit' || details.hideModify) {
        throw new RpcError(-32602, `this ${details.type} confirmation (${details.title}) offers no modify`);
      }
      // Qwen applies an inline modify only for non-empty content.
      if (typeof modifiedContent !== 'string' || modifiedContent === '') {
        throw new RpcError(-32602, 'modify needs a non-empty modifiedContent');
      }
      return ['proceed_once', { ...payload, newContent: modifiedContent }];
    default:
      throw new RpcError(-32602, `outcome must be proceed_once, proceed_always, cancel or modify, not ${JSON.stringify(outcome)}`);
  }
}
