// The adapter's pure parts, without Gemini installed: the name and argument
// mapping, the declarations given back, and a completed call as an Outcome.

import assert from 'node:assert/strict';
import test from 'node:test';

import {
  EDIT_INSTRUCTION,
  GEMINI_TOOLS,
  toConfigParams,
  toDescriptor,
  toErrorCode,
  ERROR_CODES,
  toGeminiCall,
  toLineRange,
} from '../lib/mapping.mjs';
import { CANONICAL_CODES } from '../../common/outcome.mjs';
import { matchedFiles, toOutcome } from '../lib/outcome.mjs';

test('edit becomes replace with the fixed instruction; replace_all is allow_multiple', () => {
  const call = toGeminiCall('edit', { file_path: '/r/a', old_string: 'x', new_string: 'y', replace_all: true });
  assert.deepEqual(call, {
    name: 'replace',
    args: { file_path: '/r/a', old_string: 'x', new_string: 'y', allow_multiple: true, instruction: EDIT_INSTRUCTION },
  });
  // A key Gemini does not declare passes through for Gemini to ignore.
  assert.equal(toGeminiCall('edit', { expected_replacements: 2 }).args.expected_replacements, 2);
});

test('search and listing arguments take Gemini names', () => {
  assert.deepEqual(toGeminiCall('grep_search', { pattern: 'p', path: '/r/s', glob: '*.ts', limit: 2 }), {
    name: 'grep_search',
    args: { pattern: 'p', dir_path: '/r/s', include_pattern: '*.ts', total_max_matches: 2 },
  });
  assert.deepEqual(toGeminiCall('glob', { pattern: '*', path: '/r', respect_qwen_ignore: false }).args, {
    pattern: '*',
    dir_path: '/r',
    respect_gemini_ignore: false,
  });
  assert.deepEqual(
    toGeminiCall('list_directory', { path: '/r', file_filtering_options: { respect_qwen_ignore: false } }).args,
    { dir_path: '/r', file_filtering_options: { respect_gemini_ignore: false } },
  );
  assert.deepEqual(toGeminiCall('run_shell_command', { command: 'ls', directory: 'd' }).args, { command: 'ls', dir_path: 'd' });
});

test('offset/limit become a 1-based inclusive line range; null is omitted', () => {
  assert.deepEqual(toLineRange(2, 3), { start_line: 3, end_line: 5 });
  assert.deepEqual(toLineRange(8, undefined), { start_line: 9 });
  assert.deepEqual(toLineRange(undefined, 4), { end_line: 4 });
  assert.deepEqual(toLineRange(null, null), {});
  assert.deepEqual(toLineRange('2', 1), { start_line: '2', end_line: 1 });
  assert.deepEqual(toGeminiCall('read_file', { file_path: '/r/a', offset: 0, limit: 1, pages: null }).args, {
    file_path: '/r/a',
    pages: null,
    start_line: 1,
    end_line: 1,
  });
});

test('an unmapped name reaches Gemini unchanged, to be answered as Gemini would', () => {
  assert.deepEqual(toGeminiCall('tool_search', { q: 1 }), { name: 'tool_search', args: { q: 1 } });
  assert.ok(GEMINI_TOOLS.includes('replace') && !GEMINI_TOOLS.includes('edit'));
});

test("Gemini's declarations come back under toolpass names, without instruction", () => {
  const edit = toDescriptor({
    name: 'replace',
    description: 'Replaces text',
    parametersJsonSchema: {
      type: 'object',
      properties: { file_path: {}, instruction: {}, old_string: {}, new_string: {}, allow_multiple: { type: 'boolean' } },
      required: ['file_path', 'instruction', 'old_string', 'new_string'],
    },
  });
  assert.equal(edit.name, 'edit');
  assert.deepEqual(Object.keys(edit.inputSchema.properties), ['file_path', 'old_string', 'new_string', 'replace_all']);
  assert.deepEqual(edit.inputSchema.required, ['file_path', 'old_string', 'new_string']);
  const read = toDescriptor({
    name: 'read_file',
    parametersJsonSchema: { type: 'object', properties: { file_path: {}, start_line: {}, end_line: {} }, required: ['file_path'] },
  });
  assert.deepEqual(Object.keys(read.inputSchema.properties), ['file_path', 'offset', 'limit']);
  assert.equal(toDescriptor({ name: 'web_fetch' }), undefined);
});

test("error types: Gemini's canonical strings kept, its own mapped, anything else unknown", () => {
  assert.equal(toErrorCode('edit_no_occurrence_found'), 'edit_no_occurrence_found');
  assert.equal(toErrorCode('policy_violation'), 'execution_denied');
  assert.equal(toErrorCode('sandbox_expansion_required'), 'execution_denied');
  assert.equal(toErrorCode('web_search_failed'), 'web_search_backend_failed');
  assert.equal(toErrorCode('a_type_from_a_later_gemini'), 'unknown');
  assert.equal(toErrorCode(undefined), 'unknown');
  for (const code of Object.values(ERROR_CODES)) assert.ok(CANONICAL_CODES.has(code), code);
});

test('session config: the threshold passes, approval modes are renamed, an unknown mode is refused', () => {
  assert.deepEqual(toConfigParams({ truncateToolOutputThreshold: 9, approvalMode: 'auto-edit' }), {
    truncateToolOutputThreshold: 9,
    approvalMode: 'autoEdit',
  });
  assert.throws(() => toConfigParams({ approvalMode: 'sometimes' }), (e) => e.code === -32602);
});

const responded = (response) => ({ responseParts: [{ functionResponse: { response } }] });

test('a failed call carries the mapped code, the message and a text display', () => {
  const outcome = toOutcome({
    status: 'error',
    response: {
      ...responded({ error: 'Could not find an exact match' }),
      error: new Error('Could not find an exact match'),
      errorType: 'edit_no_occurrence_found',
      resultDisplay: 'Error: no match',
    },
  });
  assert.equal(outcome.isError, true);
  assert.deepEqual(outcome._meta.toolpass, {
    status: 'error',
    llmContent: 'Could not find an exact match',
    error: { code: 'edit_no_occurrence_found', message: 'Could not find an exact match' },
    display: { type: 'text', text: 'Error: no match' },
  });
});

test("grep's matched files are resultFilePaths, once each; a saved output is persistedOutputPath", () => {
  const display = {
    summary: 'Found 3 matches',
    matches: [{ absolutePath: '/r/a' }, { absolutePath: '/r/b' }, { absolutePath: '/r/a' }],
  };
  assert.deepEqual(matchedFiles(display), ['/r/a', '/r/b']);
  const outcome = toOutcome({ status: 'success', response: { ...responded({ output: 'x' }), resultDisplay: display, outputFile: '/h/out.txt' } });
  assert.deepEqual(outcome._meta.toolpass.resultFilePaths, ['/r/a', '/r/b']);
  assert.equal(outcome._meta.toolpass.persistedOutputPath, '/h/out.txt');
  assert.equal(outcome._meta.toolpass.display, undefined);
});

test('a cancelled call stays cancelled, and is an error as toolpass/1 says', () => {
  const outcome = toOutcome({ status: 'cancelled', response: responded({ error: '[Operation Cancelled] x' }) });
  assert.equal(outcome._meta.toolpass.status, 'cancelled');
  assert.equal(outcome.isError, true);
});
