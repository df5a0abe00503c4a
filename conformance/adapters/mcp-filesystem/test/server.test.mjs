// A few calls through the adapter to the real server (skipped, naming the
// setup command, when it is not installed): what each mapping does on disk.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { connect, notInstalled } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('mapped calls reach the server and its answers come back as Outcomes', { skip: notInstalled(adapterDir), timeout: 60_000 }, async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-mcpfs-')));
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-mcpfs-out-')));
  const peer = connect(adapterDir);
  t.after(async () => {
    await peer.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  const init = await peer.request('initialize', { protocolVersion: 'toolpass/1', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  assert.deepEqual(init.capabilities.toolpass, { version: 1, features: ['sessions'] });
  const { sessionId } = await peer.request('toolpass/session.open', { root });
  let calls = 0;
  const call = async (name, args) =>
    (await peer.request('tools/call', { name, arguments: args, _meta: { toolpass: { sessionId, callId: `c${++calls}` } } }))._meta.toolpass;
  const file = path.join(root, 'a.txt');

  assert.equal((await call('write_file', { file_path: file, content: 'one\ntwo\nthree\n' })).status, 'success');
  assert.equal((await call('read_file', { file_path: file, offset: 0, limit: 2 })).llmContent, 'one\ntwo');
  const edit = await call('edit', { file_path: file, old_string: 'two', new_string: 'TWO' });
  assert.equal(edit.status, 'success');
  assert.match(edit.llmContent, /^```diff\n[\s\S]*-two\n\+TWO\n/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\nTWO\nthree\n');
  assert.equal((await call('list_directory', { path: root })).llmContent, '[FILE] a.txt');
  assert.equal((await call('glob', { pattern: '*.txt' })).llmContent, file);

  assert.equal((await call('edit', { file_path: file, old_string: 'zzz', new_string: 'q' })).error.code, 'edit_no_occurrence_found');
  assert.equal((await call('read_file', { file_path: path.join(outside, 'x') })).error.code, 'path_not_in_workspace');
  assert.equal((await call('read_file', { file_path: path.join(root, 'none') })).error.code, 'file_not_found');
  assert.equal((await call('read_file', {})).error.code, 'invalid_tool_params');
  assert.equal((await call('read_file', { file_path: file, offset: 1, limit: 1 })).error.code, 'invalid_tool_params');
  assert.equal((await call('grep_search', { pattern: 'x' })).error.code, 'tool_not_registered');
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\nTWO\nthree\n');
  await peer.request('toolpass/session.close', { sessionId });
});
