// The smoke test every adapter runs: its real peer behind toolpass/1, one
// session that reads (when the adapter declares read_file) and edits a
// file in a temp root. Without the peer installed it is reported as
// skipped, naming the setup command, so CI without the registry stays
// honest about what it did not check.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

/** Why the peer cannot be smoke-tested here, or undefined when it can. */
export function notInstalled(adapterDir) {
  const pkg = JSON.parse(fs.readFileSync(path.join(adapterDir, 'package.json'), 'utf8'));
  const missing = Object.keys(pkg.dependencies ?? {}).filter(
    (name) => !fs.existsSync(path.join(adapterDir, 'node_modules', name, 'package.json')),
  );
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed: run \`just adapter-setup ${path.basename(adapterDir)}\``;
}

/**
 * A toolpass/1 client of the adapter's `run`: `request(method, params)`
 * resolves with the result (rejects with the error); `start(method,
 * params)` returns `{id, result}`, the id for `notify('notifications/cancelled',
 * {requestId})`; `notification(test,
 * ms)` with the first notification `test` accepts, arrived or to come;
 * `close()` ends stdin and resolves with the exit code. `env` replaces the
 * adapter's environment (default: this process's).
 */
export function connect(adapterDir, { env } = {}) {
  const child = spawn(path.join(adapterDir, 'run'), [], { stdio: ['pipe', 'pipe', 'pipe'], env: env ?? process.env });
  const stderr = [];
  child.stderr.on('data', (chunk) => stderr.push(chunk));
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = new Map();
  const notifications = [];
  const watchers = new Set();
  lines.on('line', (line) => {
    const message = JSON.parse(line);
    if (message.id === undefined) {
      notifications.push(message);
      for (const watch of watchers) watch(message);
      return;
    }
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const failAfter = (ms, what, reject) =>
    setTimeout(() => reject(new Error(`${what}: nothing in ${ms} ms\n${Buffer.concat(stderr)}`)), ms);
  let next = 0;
  // start: sends a request and returns its id (for a cancellation) and the
  // promise of its result.
  const start = (method, params) => {
    const id = ++next;
    const result = new Promise((resolve, reject) => {
      const timer = failAfter(60_000, method, reject);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return { id, result };
  };
  const request = (method, params) => start(method, params).result;
  const notify = (method, params) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  const notification = (accept, ms = 10_000) =>
    new Promise((resolve, reject) => {
      const found = notifications.find(accept);
      if (found) return resolve(found);
      const timer = failAfter(ms, 'notification', reject);
      const watch = (message) => {
        if (!accept(message)) return;
        clearTimeout(timer);
        watchers.delete(watch);
        resolve(message);
      };
      watchers.add(watch);
    });
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const close = () => {
    child.stdin.end();
    return exited;
  };
  return { request, start, notify, notification, close, exited };
}

/**
 * The repository's MCP test server, `toolpass-mcp-fixture`, for an
 * adapter's own MCP tests: `TOOLPASS_MCP_FIXTURE` (as the runner reads it),
 * else cargo's build of it under `CARGO_TARGET_DIR` or the checkout's
 * `target/` (debug, then release). Undefined when it is not built.
 */
export function mcpFixture() {
  const named = process.env.TOOLPASS_MCP_FIXTURE;
  if (named) return fs.existsSync(named) ? named : undefined;
  const checkout = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
  const targets = [process.env.CARGO_TARGET_DIR, path.join(checkout, 'target')].filter(Boolean);
  for (const target of targets) {
    for (const profile of ['debug', 'release']) {
      const binary = path.join(target, profile, 'toolpass-mcp-fixture');
      if (fs.existsSync(binary)) return binary;
    }
  }
  return undefined;
}

/** Why an adapter's MCP test cannot run here, or undefined when it can. */
export function mcpNotReady(adapterDir) {
  const peer = notInstalled(adapterDir);
  if (peer) return peer;
  if (!mcpFixture()) return 'the MCP test server is not built: run `cargo build -p toolpass-mcp-fixture`';
  return undefined;
}

/**
 * The adapter's `run` with the MCP test server's directory first on PATH,
 * as the runner starts it for a scenario whose `mcpServers` name it.
 */
export function connectWithFixture(adapterDir) {
  const dir = path.dirname(mcpFixture());
  return connect(adapterDir, { env: { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}` } });
}

/**
 * For an adapter's own MCP tests (`t` the node:test context, which closes
 * everything after): the adapter connected with the MCP test server on its
 * PATH, initialized, and a session on a fresh root holding `notes/a.txt`
 * ("alpha\n") opened with `config`. `call(name, args)` resolves with an
 * Outcome's `_meta.toolpass`.
 */
export async function fixtureSession(t, adapterDir, config) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-mcp-')));
  fs.mkdirSync(path.join(root, 'notes'));
  fs.writeFileSync(path.join(root, 'notes', 'a.txt'), 'alpha\n');
  const peer = connectWithFixture(adapterDir);
  t.after(async () => {
    await peer.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const init = await peer.request('initialize', { protocolVersion: 'toolpass/1', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  const { sessionId } = await peer.request('toolpass/session.open', { root, config });
  let calls = 0;
  const call = async (name, args) =>
    (await peer.request('tools/call', { name, arguments: args, _meta: { toolpass: { sessionId, callId: `c${++calls}` } } }))._meta.toolpass;
  return { peer, init, sessionId, call };
}

/**
 * For an adapter's own tests of a real peer (`t` the node:test context,
 * which closes everything after): the adapter connected and initialized,
 * and a session opened with `config` on a fresh root holding `files`
 * (name -> text). `call(name, args, callId)` and `confirm(callId, outcome,
 * extra)` resolve with an Outcome's `_meta.toolpass`.
 */
export async function rootSession(t, adapterDir, config, files = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-root-')));
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(root, name), bytes);
  const peer = connect(adapterDir);
  t.after(async () => {
    await peer.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  await peer.request('initialize', { protocolVersion: 'toolpass/1', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
  const { sessionId } = await peer.request('toolpass/session.open', { root, config });
  const call = async (name, args, callId) =>
    (await peer.request('tools/call', { name, arguments: args, _meta: { toolpass: { sessionId, callId } } }))._meta.toolpass;
  const confirm = async (callId, outcome, extra = {}) =>
    (await peer.request('toolpass/confirm', { sessionId, callId, outcome, ...extra }))._meta.toolpass;
  const close = () => peer.request('toolpass/session.close', { sessionId });
  return { peer, root, sessionId, call, confirm, close };
}

/** The smoke scenario: initialize, open, list, (read,) edit, close. */
export async function smoke(adapterDir) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-smoke-')));
  const file = path.join(root, 'a.txt');
  fs.writeFileSync(file, 'hello\n');
  const peer = connect(adapterDir);
  try {
    const init = await peer.request('initialize', {
      protocolVersion: 'toolpass/1',
      capabilities: {},
      clientInfo: { name: 'smoke', version: '1' },
    });
    assert.equal(init.capabilities.toolpass.version, 1);
    const { sessionId } = await peer.request('toolpass/session.open', { root });
    const { tools } = await peer.request('tools/list', { sessionId });
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('edit'), `edit is declared: ${names.join(', ')}`);
    const call = (name, args, callId) =>
      peer.request('tools/call', { name, arguments: args, _meta: { toolpass: { sessionId, callId } } });
    if (names.includes('read_file')) {
      const read = await call('read_file', { file_path: file }, 'c1');
      assert.equal(read._meta.toolpass.status, 'success', read._meta.toolpass.llmContent);
    }
    const edit = await call('edit', { file_path: file, old_string: 'hello', new_string: 'world' }, 'c2');
    assert.equal(edit._meta.toolpass.status, 'success', edit._meta.toolpass.llmContent);
    assert.equal(fs.readFileSync(file, 'utf8'), 'world\n');
    await peer.request('toolpass/session.close', { sessionId });
  } finally {
    await peer.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Whether any process is left in the process group `pgid`. */
export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    if (e.code === 'ESRCH') return false;
    throw e;
  }
}

/** Waits up to `ms` for the group to empty; true when it did. */
export async function groupGone(pgid, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Starts a tools/call on `peer` with MCP's `progressToken` = its call id;
 * returns the request's id (for `notifications/cancelled`) and the promise
 * of its Outcome's `_meta.toolpass`.
 */
export function startTokenedCall(peer, sessionId, name, args, callId) {
  const params = { name, arguments: args, _meta: { toolpass: { sessionId, callId }, progressToken: callId } };
  const { id, result } = peer.start('tools/call', params);
  return { id, outcome: result.then((r) => r._meta.toolpass) };
}

/** For `notification`: a progress update under `token` whose message contains `text`. */
export const progressOf = (token, text) => (m) =>
  m.method === 'notifications/progress' && m.params.progressToken === token && m.params.message.includes(text);
