// The batch budget's account (toolpass/batch's `budget`) from what Qwen's
// finalizer took and gave back. Qwen states the account only in a debug log
// line (`finalizeToolResponses`: "Tool response budget (<B> chars): reduced
// <N> result(s) from <T> to <F> chars."), so it is counted here the way
// that function counts. Pure, so it is tested without the bundle.

/**
 * The UTF-16 units of one response's texts as Qwen's `collectTextSlots`
 * collects them: every part's `text`, every function response's non-empty
 * `output` and its `error`. (Qwen also leaves out the plan-mode reminder
 * that opens enter_plan_mode's output, through a helper its bundle does not
 * export; this count includes it, so an account over such a call is
 * larger by the reminder on both sides.)
 */
export function textUnits(responseParts) {
  let units = 0;
  for (const part of Array.isArray(responseParts) ? responseParts : []) {
    if (typeof part?.text === 'string') units += part.text.length;
    const response = part?.functionResponse?.response;
    if (typeof response?.output === 'string') units += response.output.length;
    if (typeof response?.error === 'string') units += response.error.length;
  }
  return units;
}

/** Every text of one response, in `textUnits`'s order, to tell a cut. */
function texts(responseParts) {
  const found = [];
  for (const part of Array.isArray(responseParts) ? responseParts : []) {
    const response = part?.functionResponse?.response;
    found.push(part?.text, response?.output, response?.error);
  }
  return JSON.stringify(found);
}

/**
 * The account of a batch whose calls went into Qwen's
 * `applyBatchOutputBudget` as `before` and came out as `after` (its
 * completed calls, same order), under `budget` (the Config's
 * `getToolOutputBatchBudget()`, infinite when there is none): undefined
 * without a budget, as Qwen's finalizer then does nothing. `reduced` counts
 * the calls whose text changed: a text over its share is always cut
 * shorter, so these are the results Qwen's line counts.
 */
export function batchAccount(budget, before, after) {
  if (!Number.isFinite(budget) || budget <= 0) return undefined;
  const sum = (calls) => calls.reduce((total, call) => total + textUnits(call.response?.responseParts), 0);
  let reduced = 0;
  before.forEach((call, i) => {
    if (texts(call.response?.responseParts) !== texts(after[i]?.response?.responseParts)) reduced += 1;
  });
  return { budget, before: sum(before), after: sum(after), reduced };
}
