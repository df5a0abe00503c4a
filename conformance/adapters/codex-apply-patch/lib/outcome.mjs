// What `apply_patch` printed -> a toolpass/1 Outcome. Pure.
//
// Success: exit 0, `Success. Updated the following files:\nA …\nM …` on
// stdout, which is what the model reads. Failure: exit 1 and one line of
// reason on stderr (apply_patch has no error codes; the code is read off
// its own words, and its text is passed through).

import { failure, success } from '../../common/outcome.mjs';

/** apply_patch's failure texts -> canonical codes, first match wins. */
const CODES = [
  [/^Failed to find expected lines/, 'edit_no_occurrence_found'],
  [/^Failed to read file to update .*No such file or directory/, 'file_not_found'],
  [/^Failed to read file to update .*Is a directory/, 'target_is_directory'],
  [/^Failed to read/, 'read_content_failure'],
  [/Permission denied/, 'permission_denied'],
  [/No space left on device/, 'no_space_left'],
  [/^Failed to (write|create|remove)/, 'file_write_failure'],
  [/^Invalid patch/, 'invalid_tool_params'],
];

export function errorCode(text) {
  return CODES.find(([pattern]) => pattern.test(text))?.[1] ?? 'execution_failed';
}

/** `result`: runProcess's {code, signal, stdout, stderr, timedOut, spawnError}. */
export function toOutcome(result) {
  if (result.spawnError) return failure('unhandled_exception', `could not run apply_patch: ${result.spawnError.message}`);
  if (result.timedOut) return failure('execution_timeout', 'apply_patch did not finish in time');
  if (result.code === 0) return success(result.stdout.trimEnd());
  const text = (result.stderr.trim() || result.stdout.trim() || `apply_patch exited with ${result.code ?? result.signal}`);
  return failure(errorCode(text), text);
}
