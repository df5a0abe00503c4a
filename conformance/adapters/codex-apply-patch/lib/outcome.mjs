// What `apply_patch` printed -> a toolpass/1 Outcome. Pure.
//
// Success: exit 0, `Success. Updated the following files:\nA …\nM …` on
// stdout, which is what the model reads. Failure: exit 1 and one line of
// reason on stderr (apply_patch has no error codes; the code is read off
// its own words, and its text is passed through).

import { failure, processFailure, success } from '../../common/outcome.mjs';
import { withoutSandboxWarnings } from '../../common/peers.mjs';

/** Canonical code -> the apply_patch failure text it stands for; the first that matches wins. */
const CODES = {
  edit_no_occurrence_found: /^Failed to find expected lines/,
  file_not_found: /^Failed to read file to update .*No such file or directory/,
  target_is_directory: /^Failed to read file to update .*Is a directory/,
  read_content_failure: /^Failed to read/,
  permission_denied: /Permission denied/,
  no_space_left: /No space left on device/,
  file_write_failure: /^Failed to (write|create|remove)/,
  invalid_tool_params: /^Invalid patch/,
};

export function errorCode(text) {
  return Object.entries(CODES).find(([, pattern]) => pattern.test(text))?.[0] ?? 'execution_failed';
}

/** `result`: runProcess's {code, signal, stdout, stderr, timedOut, spawnError}. */
export function toOutcome(result) {
  const unfinished = processFailure(result, 'apply_patch');
  if (unfinished) return unfinished;
  if (result.code === 0) return success(result.stdout.trimEnd());
  const text = (withoutSandboxWarnings(result.stderr) || result.stdout.trim() || `apply_patch exited with ${result.code ?? result.signal}`);
  return failure(errorCode(text), text);
}
