// Real Gemini CLI core's confirmations through the adapter, over toolpass/1
// lines: in default mode its policy asks, the call parks and runs only once
// answered; "proceed always" on an edit switches the session to auto-edit;
// a command's confirmation offers no modify. Skipped, naming the setup
// command, when Gemini is not installed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { notInstalled, rootSession } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const slow = { skip: notInstalled(adapterDir), timeout: 180_000 };

test("the adapter's always-answers are outcomes Gemini knows", slow, async () => {
  const gemini = await import('@google/gemini-cli-core');
  const known = new Set(Object.values(gemini.ToolConfirmationOutcome));
  const { toGeminiAnswer } = await import('../lib/confirmation.mjs');
  for (const type of ['edit', 'exec', 'info', 'mcp']) {
    for (const outcome of ['proceed_once', 'proceed_always', 'cancel']) {
      const answer = toGeminiAnswer({ outcome }, { type, title: 't' });
      assert.ok(known.has(answer.outcome), `${type} ${outcome} -> ${answer.outcome}`);
    }
  }
});

test('a write asks in default mode, creates nothing until approved, and always switches to auto-edit', slow, async (t) => {
  const s = await rootSession(t, adapterDir, { approvalMode: 'default' });
  const file = path.join(s.root, 'new.txt');
  const asked = await s.call('write_file', { file_path: file, content: 'one\n' }, 'w1');
  assert.equal(asked.status, 'awaiting_confirmation', asked.llmContent);
  assert.deepEqual([asked.confirmation.type, asked.confirmation.path, asked.confirmation.new], ['edit', file, 'one\n']);
  assert.equal(fs.existsSync(file), false);
  const read = await s.call('read_file', { file_path: file }, 'r1');
  assert.equal(read.status, 'error', 'other calls run while one waits');
  const written = await s.confirm('w1', 'proceed_always');
  assert.equal(written.status, 'success', written.llmContent);
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n');
  await assert.rejects(s.confirm('w1', 'proceed_once'), /no call w1 awaits confirmation/);
  const unasked = await s.call('edit', { file_path: file, old_string: 'one', new_string: 'two' }, 'e1');
  assert.equal(unasked.status, 'success', 'the session is in auto-edit now');
  assert.equal(fs.readFileSync(file, 'utf8'), 'two\n');
  await s.close();
});

test("a command asks; modify is refused and the call still waits for an answer it offers", slow, async (t) => {
  const s = await rootSession(t, adapterDir, { approvalMode: 'default' }, { v1: 'keep\n' });
  const asked = await s.call('run_shell_command', { command: 'rm v1' }, 'rm');
  assert.equal(asked.status, 'awaiting_confirmation', asked.llmContent);
  assert.deepEqual([asked.confirmation.type, asked.confirmation.command], ['exec', 'rm v1']);
  await assert.rejects(s.confirm('rm', 'modify', { modifiedContent: 'echo kept' }), /offers no modify/);
  const declined = await s.confirm('rm', 'cancel');
  assert.equal(declined.status, 'cancelled', declined.llmContent);
  assert.equal(fs.readFileSync(path.join(s.root, 'v1'), 'utf8'), 'keep\n');
  // A parked call is dropped with its session.
  const parked = await s.call('run_shell_command', { command: 'rm v1' }, 'rm2');
  assert.equal(parked.status, 'awaiting_confirmation');
  await s.close();
  assert.equal(fs.readFileSync(path.join(s.root, 'v1'), 'utf8'), 'keep\n');
});

test("modify writes the user's content in place of the proposal", slow, async (t) => {
  const s = await rootSession(t, adapterDir, { approvalMode: 'default' }, { 'a.txt': 'alpha\n' });
  const file = path.join(s.root, 'a.txt');
  const asked = await s.call('edit', { file_path: file, old_string: 'alpha', new_string: 'beta' }, 'e1');
  assert.equal(asked.status, 'awaiting_confirmation', asked.llmContent);
  assert.deepEqual([asked.confirmation.old, asked.confirmation.new], ['alpha\n', 'beta\n']);
  const modified = await s.confirm('e1', 'modify', { modifiedContent: 'mine\n' });
  assert.equal(modified.status, 'success', modified.llmContent);
  assert.equal(fs.readFileSync(file, 'utf8'), 'mine\n');
  await s.close();
});
