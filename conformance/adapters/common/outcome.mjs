// What Gemini CLI and the tool layers forked from it (Qwen Code) share
// when their scheduler's response becomes a toolpass/1 Outcome: the
// functionResponse the model sees, the `FileDiff` an edit or write shows,
// and the MCP CallToolResult envelope. Pure, so it is tested without a peer.

import fs from 'node:fs';

import { RpcError } from './framing.mjs';

/**
 * The canonical error codes, read from the protocol's committed schema
 * (its `ErrorCode` enum) so the adapters and the runner share one list.
 */
export const CANONICAL_CODES = new Set(
  JSON.parse(fs.readFileSync(new URL('../../toolpass-protocol/schemas/outcome.json', import.meta.url), 'utf8'))
    .$defs.ErrorCode.enum,
);

/**
 * A peer's code as toolpass/1 allows it: unchanged when canonical, else
 * `unknown` (the wire refuses any other code; the peer's message still says
 * what happened).
 */
export function canonicalCode(code) {
  return CANONICAL_CODES.has(code) ? code : 'unknown';
}

/** The text the model sees: the functionResponse's output or error. */
export function modelText(response) {
  const part = response?.responseParts?.[0]?.functionResponse?.response ?? {};
  for (const key of ['output', 'error', 'content']) {
    if (typeof part[key] === 'string') return part[key];
  }
  return '';
}

/**
 * `_meta.toolpass` -> the whole Outcome: MCP `content` carries llmContent as
 * one text block (none when empty); `isError` is true unless the call
 * succeeded or awaits confirmation (a cancelled call did not do what the
 * model asked), as the protocol's Outcome says.
 */
export function envelope(toolpass) {
  const text = toolpass.llmContent;
  return {
    content: text === '' ? [] : [{ type: 'text', text }],
    isError: toolpass.status !== 'success' && toolpass.status !== 'awaiting_confirmation',
    _meta: { toolpass },
  };
}

/**
 * The display forms every peer of this family has: a string is a `text`
 * display (none when empty); a `FileDiff` ({fileDiff, fileName, filePath,
 * originalContent, newContent, diffStat}) is a `diff`. Anything else is
 * undefined, for the adapter to map or leave out.
 */
export function commonDisplay(display) {
  if (typeof display === 'string') return display === '' ? undefined : { type: 'text', text: display };
  if (display === null || typeof display !== 'object') return undefined;
  if (typeof display.fileDiff !== 'string' || typeof display.newContent !== 'string') return undefined;
  const diff = {
    type: 'diff',
    path: display.filePath ?? display.fileName,
    new: display.newContent,
    stat: fileDiffStat(display),
    diff: display.fileDiff,
  };
  if (typeof display.originalContent === 'string') diff.old = display.originalContent;
  const userStat = modifiedStat(display.diffStat);
  if (userStat) diff.userStat = userStat;
  return diff;
}

/**
 * The user's half of a modified proposal (`diffStat.user_*`), or undefined
 * when the user changed nothing: Qwen's getDiffStat zeroes every user figure
 * when the proposal was written as the model made it, and the protocol
 * gives `userStat` only for a modified proposal.
 */
function modifiedStat(stat) {
  if (!stat || typeof stat.user_added_lines !== 'number') return undefined;
  const figures = ['user_added_lines', 'user_removed_lines', 'user_added_chars', 'user_removed_chars'];
  if (figures.every((key) => !stat[key])) return undefined;
  return { addedLines: stat.user_added_lines, removedLines: stat.user_removed_lines ?? 0 };
}

/** The peer's own model-side stat when it gives one, else counted off the diff. */
function fileDiffStat(display) {
  const stat = display.diffStat;
  if (stat && typeof stat.model_added_lines === 'number') {
    return { addedLines: stat.model_added_lines, removedLines: stat.model_removed_lines ?? 0 };
  }
  const lines = display.fileDiff.split('\n');
  const counted = (sign, header) => lines.filter((l) => l.startsWith(sign) && !l.startsWith(header)).length;
  return { addedLines: counted('+', '+++'), removedLines: counted('-', '---') };
}

/**
 * The session config keys an adapter can map, picked out of `config`; any
 * other key is refused (-32602) rather than ignored, since an ignored
 * threshold would make a scenario pass untested.
 */
export function pickConfig(config, mappable, peer) {
  const given = config ?? {};
  const unknown = Object.keys(given).filter((k) => !mappable.includes(k));
  if (unknown.length > 0) {
    throw new RpcError(-32602, `config keys this adapter cannot map onto ${peer}: ${unknown.join(', ')}`);
  }
  return Object.fromEntries(mappable.filter((k) => k in given).map((k) => [k, given[k]]));
}

// Outcomes for adapters that build them from a peer's text (a program's
// output) rather than from a scheduler's response.

/** An Outcome from its `_meta.toolpass` members; empty optional ones are left out. */
export function outcome({ status, llmContent = '', error, display, resultFilePaths, persistedOutputPath }) {
  const toolpass = { status, llmContent };
  if (error) toolpass.error = error;
  if (display) toolpass.display = display;
  if (Array.isArray(resultFilePaths) && resultFilePaths.length > 0) toolpass.resultFilePaths = resultFilePaths;
  if (typeof persistedOutputPath === 'string') toolpass.persistedOutputPath = persistedOutputPath;
  return envelope(toolpass);
}

/** A successful call: the text the model sees, and any other members. */
export function success(llmContent, extra = {}) {
  return outcome({ ...extra, status: 'success', llmContent });
}

/**
 * A failed call: a canonical code and the peer's message. A code outside the
 * list is the adapter's bug, so it throws (a JSON-RPC error naming it)
 * rather than sending what the runner would refuse.
 */
export function failure(code, message, llmContent = message) {
  if (!CANONICAL_CODES.has(code)) throw new Error(`${code} is not a canonical error code`);
  return outcome({ status: 'error', llmContent, error: { code, message } });
}

/** A call to a tool the adapter does not offer, as the reference answers an unknown tool. */
export function toolNotRegistered(name, offered) {
  const message = `Tool "${name}" not found in registry. Tools must use the exact names that are registered: ${offered.join(', ')}.`;
  return failure('tool_not_registered', message);
}

/**
 * The failure for a peer program that could not run or did not finish
 * (runProcess's `spawnError` / `timedOut`), or undefined when it ran.
 */
export function processFailure(result, program) {
  if (result.spawnError) return failure('unhandled_exception', `could not run ${program}: ${result.spawnError.message}`);
  if (result.timedOut) return failure('execution_timeout', `${program} did not finish in time`);
  return undefined;
}

/**
 * A call parked at a confirmation: the model has seen nothing yet.
 * `classifierInput`, when given, is what the peer's auto-mode classifier
 * would be shown of the call (Qwen's lib/classifier.mjs).
 */
export function awaitingOutcome(confirmation, classifierInput) {
  const toolpass = { status: 'awaiting_confirmation', llmContent: '', confirmation };
  if (classifierInput !== undefined) toolpass.classifierInput = classifierInput;
  return envelope(toolpass);
}
