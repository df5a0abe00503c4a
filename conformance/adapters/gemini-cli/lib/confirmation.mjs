// Gemini CLI's confirmations <-> toolpass/1's: what the scheduler parks a
// call with (`ToolCallConfirmationDetails`, packages/core/src/tools/tools.ts)
// becomes an Outcome's `confirmation`, and a `toolpass/confirm` becomes the
// `ToolConfirmationOutcome` and payload Gemini's hosts send back in a
// TOOL_CONFIRMATION_RESPONSE. Pure, so it is tested without the package.

import { sharedConfirmation, toQuestion } from '../../common/confirmation.mjs';
import { RpcError } from '../../common/framing.mjs';

/**
 * Gemini's confirmation details -> a toolpass Confirmation, or an Error
 * naming a type toolpass/1 has no form for (`sandbox_expansion`, and
 * `exit_plan_mode`, whose answer is an approval mode; neither tool the
 * adapter registers asks them). An `edit` has no `old` when Gemini gives
 * `originalContent: null` (replace creating a file); write_file shows a new
 * file's content before as '', which stays. A `choice` question keeps its
 * options; a `text` or `yesno` one has none (Gemini's dialog draws those
 * inputs itself).
 */
export function toConfirmation(details) {
  const shared = sharedConfirmation(details);
  if (shared) return shared;
  if (details?.type === 'ask_user') {
    return { type: 'ask_user_question', title: details.title, questions: (details.questions ?? []).map(toQuestion) };
  }
  return new Error(`Gemini asked for a confirmation of type ${JSON.stringify(details?.type)}, which toolpass/1 has no form for`);
}

/**
 * What "proceed always" is for each details type: the "Allow for this
 * session" choice Gemini's own hosts offer (`toPermissionOptions` of its
 * ACP agent, the CLI's ToolConfirmationMessage). An edit's ProceedAlways
 * switches the session to auto-edit (the scheduler's `updatePolicy`); for
 * an MCP tool the choice is the tool (`ProceedAlwaysTool`), not its server.
 * A questionnaire offers none.
 */
const ALWAYS = { edit: 'proceed_always', exec: 'proceed_always', info: 'proceed_always', mcp: 'proceed_always_tool' };

/**
 * A `toolpass/confirm`'s answer -> `{outcome, payload}` of Gemini's
 * TOOL_CONFIRMATION_RESPONSE for the parked call (`details`). `modify` is
 * Gemini's inline modification (what its IDE and chat UI send): ProceedOnce
 * with the user's content as `payload.newContent`, which the scheduler
 * applies to an `edit` confirmation only (`ToolModificationHandler
 * .applyInlineModify`), so any other confirmation refuses it.
 */
export function toGeminiAnswer(params, details) {
  const { outcome, modifiedContent, answers } = params;
  const type = details.type;
  // Answers belong to questions: Gemini's other confirmations would ignore
  // them, and toolpass/1 refuses them rather than let them pass unnoticed.
  if (answers !== undefined && answers !== null && type !== 'ask_user') {
    throw new RpcError(-32602, `answers go with an ask_user_question confirmation, not this ${type} one (${details.title})`);
  }
  const withAnswers = answers && Object.keys(answers).length > 0 ? { answers } : undefined;
  switch (outcome) {
    case 'proceed_once':
      return { outcome: 'proceed_once', payload: withAnswers };
    case 'cancel':
      return { outcome: 'cancel', payload: undefined };
    case 'proceed_always':
      if (!ALWAYS[type]) throw new RpcError(-32602, `this ${type} confirmation (${details.title}) offers no proceed_always`);
      return { outcome: ALWAYS[type], payload: withAnswers };
    case 'modify':
      if (type !== 'edit') throw new RpcError(-32602, `this ${type} confirmation (${details.title}) offers no modify`);
      // Gemini applies any string, the empty one too (a file emptied).
      if (typeof modifiedContent !== 'string') throw new RpcError(-32602, 'modify needs a modifiedContent');
      return { outcome: 'proceed_once', payload: { newContent: modifiedContent } };
    default:
      throw new RpcError(-32602, `outcome must be proceed_once, proceed_always, cancel or modify, not ${JSON.stringify(outcome)}`);
  }
}
