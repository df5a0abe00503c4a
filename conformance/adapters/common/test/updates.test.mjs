// Live output updates -> notifications/progress, for every adapter of the
// Gemini CLI family.

import assert from 'node:assert/strict';
import test from 'node:test';

import { progressSender, updateText } from '../updates.mjs';

test("an update's text: a string as it is, a pty screen as its lines, a heartbeat none", () => {
  assert.equal(updateText('a\nb\n'), 'a\nb\n');
  const screen = [[{ text: 'one' }, { text: ' two  ' }], [{ text: 'three' }], [{ text: '   ' }], []];
  assert.equal(updateText({ ansiOutput: screen, totalLines: 4, totalBytes: 14 }), 'one two\nthree');
  assert.equal(updateText(screen), 'one two\nthree', "Gemini's liveOutput is the AnsiOutput itself");
  assert.equal(updateText({ type: 'shell_progress', elapsedMs: 5000 }), undefined);
  assert.equal(updateText(undefined), undefined);
});

test("an MCP server's progress reads as Qwen's UI shows it", () => {
  assert.equal(updateText({ type: 'mcp_tool_progress', progress: 1, total: 3, message: 'step 1 of 3' }), '\u25CC [1/3] step 1 of 3');
  assert.equal(updateText({ type: 'mcp_tool_progress', progress: 2 }), '\u25CC [2] Progress: 2');
});

test('updates go out under the call token with progress counting up; no token, no sender', () => {
  const sent = [];
  const send = progressSender('call-7', (method, params) => sent.push({ method, params }));
  send('x');
  send({ type: 'shell_progress', elapsedMs: 1 });
  send('xy');
  assert.deepEqual(sent, [
    { method: 'notifications/progress', params: { progressToken: 'call-7', progress: 1, message: 'x' } },
    { method: 'notifications/progress', params: { progressToken: 'call-7', progress: 2, message: 'xy' } },
  ]);
  assert.equal(progressSender(undefined, () => {}), undefined);
  assert.equal(progressSender(null, () => {}), undefined);
});
