// A completed Gemini CLI tool call (what `Scheduler.schedule` resolves to)
// -> a toolpass/1 Outcome. Pure, so it is tested without the peer package.

import { commonDisplay, envelope, modelText } from '../../common/outcome.mjs';
import { toErrorCode } from './mapping.mjs';

/** Gemini's CoreToolCallStatus of a finished call -> toolpass's status. */
const STATUSES = { success: 'success', error: 'error', cancelled: 'cancelled' };

/**
 * `done`: {status, response: {responseParts, resultDisplay, error,
 * errorType, outputFile}}.
 */
export function toOutcome(done) {
  const response = done?.response ?? {};
  const llmContent = modelText(response);
  const status = STATUSES[done?.status] ?? (response.errorType || response.error ? 'error' : 'success');
  const toolpass = { status, llmContent };
  if (status === 'error') {
    toolpass.error = {
      code: toErrorCode(response.errorType),
      message: response.error?.message ?? llmContent,
    };
  }
  const display = commonDisplay(response.resultDisplay);
  if (display) toolpass.display = display;
  const files = status === 'success' ? matchedFiles(response.resultDisplay) : [];
  if (files.length > 0) toolpass.resultFilePaths = files;
  // Gemini's scheduler saves output over truncateToolOutputThreshold here.
  if (typeof response.outputFile === 'string') toolpass.persistedOutputPath = response.outputFile;
  return envelope(toolpass);
}

/**
 * The files a grep result names: Gemini's grep display is {summary,
 * matches: [{absolutePath, lineNumber, line}]}; each file once, in order.
 * Other displays name no files.
 */
export function matchedFiles(display) {
  if (!Array.isArray(display?.matches)) return [];
  const paths = display.matches.map((m) => m?.absolutePath).filter((p) => typeof p === 'string');
  return [...new Set(paths)];
}

