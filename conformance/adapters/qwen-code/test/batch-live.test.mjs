// toolpass/batch through real Qwen Code: parallel reads that only meet at
// call.rendezvous when Qwen runs them at once, the budget's account taken
// at Qwen's finalizer, and a batch Qwen holds while one call awaits
// approval. Skipped, naming the setup command, when Qwen is not installed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { notInstalled, rootSession } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const slow = { skip: notInstalled(adapterDir), timeout: 120_000 };

/** A started adapter with one session of `config` on a fresh root of `files`. */
async function session(t, config, files) {
  const s = await rootSession(t, adapterDir, config, files);
  const batch = (calls) =>
    s.peer.request('toolpass/batch', { sessionId: s.sessionId, calls: calls.map(([callId, name, args]) => ({ callId, name, arguments: args })) });
  return { ...s, batch };
}

const statuses = (results) => results.map((r) => r._meta.toolpass.status);

test("reads meet at call.rendezvous, come back in order, and the account is Qwen's cut", slow, async (t) => {
  const s = await session(t, { toolOutputBatchBudget: 100 }, { 'a.txt': 'A\n', 'b.txt': 'x'.repeat(300) });
  await s.peer.request('toolpass/fault', { sessionId: s.sessionId, point: 'call.rendezvous', times: 2 });
  const { results, budget } = await s.batch([
    ['r1', 'read_file', { file_path: `${s.root}/a.txt` }],
    ['r2', 'read_file', { file_path: `${s.root}/b.txt` }],
  ]);
  assert.deepEqual(statuses(results), ['success', 'success']);
  assert.equal(results[0]._meta.toolpass.llmContent, 'A\n');
  assert.match(results[1]._meta.toolpass.llmContent, /^Tool output truncated\./);
  assert.deepEqual(budget, { budget: 100, before: 302, after: 100, reduced: 1 });
});

test('a call that asks holds the batch: the other call is held until the answer, then both run', slow, async (t) => {
  const s = await session(t, { approvalMode: 'default' }, { 'a.txt': 'one\n', 'b.txt': 'B\n' });
  assert.equal((await s.call('read_file', { file_path: `${s.root}/a.txt` }, 'r0')).status, 'success');
  const { results, budget } = await s.batch([
    ['e', 'edit', { file_path: `${s.root}/a.txt`, old_string: 'one', new_string: 'two' }],
    ['r', 'read_file', { file_path: `${s.root}/b.txt` }],
  ]);
  assert.deepEqual(statuses(results), ['awaiting_confirmation', 'error']);
  assert.match(results[1]._meta.toolpass.error.message, /^held: .*once e is answered$/);
  assert.equal(budget, undefined, 'a held batch has not reached the finalizer');
  await assert.rejects(s.peer.request('toolpass/confirm', { sessionId: s.sessionId, callId: 'r', outcome: 'proceed_once' }), /no call r awaits confirmation/);
  assert.equal((await s.confirm('e', 'proceed_once')).status, 'success');
  assert.equal(fs.readFileSync(path.join(s.root, 'a.txt'), 'utf8'), 'two\n');
  // The batch completed: its ids are free again.
  const again = await s.batch([['r', 'read_file', { file_path: `${s.root}/b.txt` }]]);
  assert.deepEqual(statuses(again.results), ['success']);
});
