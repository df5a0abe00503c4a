// Real Gemini CLI core's run_shell_command through the adapter, over
// toolpass/1 lines: its live output as notifications/progress, and a
// cancellation that ends the running command's group. Skipped, naming the
// setup command, when Gemini is not installed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { connect, groupGone, notInstalled, progressOf, startTokenedCall } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const slow = { skip: notInstalled(adapterDir), timeout: 180_000 };

/** A started adapter with one yolo session on a fresh root. */
async function session(t) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-gemini-shell-')));
  const peer = connect(adapterDir);
  t.after(async () => {
    await peer.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const init = await peer.request('initialize', { protocolVersion: 'toolpass/1', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
  const { sessionId } = await peer.request('toolpass/session.open', { root });
  const shell = (command, callId) => startTokenedCall(peer, sessionId, 'run_shell_command', { command }, callId);
  return { peer, root, features: init.capabilities.toolpass.features, shell };
}

test("a running command's liveOutput arrives as progress, and a cancellation ends its group", slow, async (t) => {
  const s = await session(t);
  assert.ok(s.features.includes('updates') && s.features.includes('cancel'), s.features.join(', '));
  const streaming = s.shell('echo first-line; while [ ! -e go ]; do sleep 0.05; done; echo second-line', 'g1');
  await s.peer.notification(progressOf('g1', 'first-line'), 20_000);
  fs.writeFileSync(path.join(s.root, 'go'), '');
  const done = await streaming.outcome;
  assert.equal(done.status, 'success', done.llmContent);
  assert.match(done.llmContent, /first-line\n.*second-line/s);

  const looping = s.shell('echo $$ > pid; echo started; while true; do sleep 0.05; done', 'g2');
  await s.peer.notification(progressOf('g2', 'started'), 20_000);
  const pid = Number(fs.readFileSync(path.join(s.root, 'pid'), 'utf8'));
  s.peer.notify('notifications/cancelled', { requestId: looping.id, reason: 'test' });
  const cancelled = await looping.outcome;
  assert.equal(cancelled.status, 'cancelled', cancelled.llmContent);
  assert.equal(await groupGone(pid), true, `process group ${pid} outlived its cancelled call`);
});
