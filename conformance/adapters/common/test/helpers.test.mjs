// The shared helpers for adapters that build Outcomes from a peer's text
// and run it as a program: outcomes, processes, descriptors, sessions,
// package lookup.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';

import { failure, processFailure, success, toolNotRegistered } from '../outcome.mjs';
import { codexTriple, codexVendor, inCodexSandbox, packageDir, removeIfEmptyDir, withoutSandboxWarnings } from '../peers.mjs';
import { runProcess } from '../process.mjs';
import { openRootSession, Sessions } from '../server.mjs';
import { descriptor } from '../tools.mjs';

test('success and failure Outcomes carry the text once, and the error beside it', () => {
  assert.deepEqual(success('done'), {
    content: [{ type: 'text', text: 'done' }],
    isError: false,
    _meta: { toolpass: { status: 'success', llmContent: 'done' } },
  });
  assert.deepEqual(success('', { resultFilePaths: [] }).content, []);
  const failed = failure('file_not_found', 'no such file');
  assert.equal(failed.isError, true);
  assert.deepEqual(failed._meta.toolpass, { status: 'error', llmContent: 'no such file', error: { code: 'file_not_found', message: 'no such file' } });
  const unknown = toolNotRegistered('read_file', ['edit']);
  assert.equal(unknown._meta.toolpass.error.code, 'tool_not_registered');
  assert.match(unknown._meta.toolpass.llmContent, /^Tool "read_file" not found in registry\..*edit/);
});

test('a process: exit code, both streams, stdin, argv0 and cwd', async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'toolpass-common-'));
  const script = 'process.stdin.on("data", d => process.stdout.write(d)); process.stdin.on("end", () => { console.error(process.cwd()); process.exit(3); });';
  const result = await runProcess(process.execPath, ['-e', script], { cwd: dir, input: 'patch\n', env: process.env });
  assert.equal(result.code, 3);
  assert.equal(result.stdout, 'patch\n');
  assert.equal(result.stderr.trim(), fs.realpathSync(dir));
  const missing = await runProcess(path.join(dir, 'nope'), []);
  assert.ok(missing.spawnError);
  const slow = await runProcess(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { timeoutMs: 50 });
  assert.equal(slow.timedOut, true);
  fs.rmSync(dir, { recursive: true });
});

test('descriptors declare the named arguments and which are required', () => {
  const d = descriptor('edit', 'edits', ['file_path', 'old_string'], ['file_path']);
  assert.deepEqual(Object.keys(d.inputSchema.properties), ['file_path', 'old_string']);
  assert.deepEqual(d.inputSchema.required, ['file_path']);
  assert.throws(() => descriptor('x', '', ['nonsense'], []));
});

test('a root session needs an absolute root and refuses config it cannot map', () => {
  const sessions = new Sessions('t');
  const { sessionId } = openRootSession(sessions, { root: '/r' });
  assert.deepEqual(sessions.get(sessionId), { root: '/r', config: {} });
  assert.throws(() => openRootSession(sessions, { root: 'rel' }), { code: -32602 });
  assert.throws(() => openRootSession(sessions, { root: '/r', config: { truncateToolOutputLines: 3 } }), {
    code: -32602,
    message: /truncateToolOutputLines/,
  });
  assert.equal(openRootSession(sessions, { root: '/r', config: { env: {} } }, ['env']).sessionId, 't-2');
});

test('packages are found by resolution from the adapter, and absent ones are undefined', () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'toolpass-peers-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  assert.equal(packageDir(dir, 'no-such-package'), undefined);
  // A fake @openai/codex with its aliased platform package beside it.
  const launcher = path.join(dir, 'node_modules', '@openai', 'codex');
  const platform = path.join(dir, 'node_modules', '@openai', 'codex-linux-x64');
  const bin = path.join(platform, 'vendor', 'x86_64-unknown-linux-musl', 'bin');
  fs.mkdirSync(launcher, { recursive: true });
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(launcher, 'package.json'), '{"name":"@openai/codex","version":"9.9.9"}');
  fs.writeFileSync(path.join(platform, 'package.json'), '{"name":"@openai/codex","version":"9.9.9-linux-x64"}');
  fs.writeFileSync(path.join(bin, 'codex'), '');
  assert.equal(packageDir(dir, '@openai/codex'), fs.realpathSync(launcher));
  const vendor = codexVendor(dir, 'linux', 'x64');
  assert.equal(vendor.version, '9.9.9');
  assert.equal(vendor.codex, path.join(fs.realpathSync(platform), 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex'));
  assert.equal(path.basename(vendor.rgDir), 'codex-path');
  assert.equal(codexVendor(dir, 'linux', 'arm64'), undefined);
  assert.equal(codexTriple('sunos', 'x64'), undefined);
  fs.rmSync(dir, { recursive: true });
});

test('a program that could not run or timed out is a failure; one that ran is not', () => {
  assert.equal(processFailure({ spawnError: new Error('ENOENT') }, 'x')._meta.toolpass.error.code, 'unhandled_exception');
  assert.equal(processFailure({ timedOut: true }, 'x')._meta.toolpass.error.message, 'x did not finish in time');
  assert.equal(processFailure({ code: 1 }, 'x'), undefined);
});

test("Codex's sandbox wraps a command, and its launcher's warnings are dropped", () => {
  const [file, args] = inCodexSandbox({ codex: '/x/codex' }, '/r', ['/bin/tool', '-a']);
  assert.equal(file, '/x/codex');
  assert.deepEqual(args, ['sandbox', '-P', ':workspace', '-C', '/r', '--', '/bin/tool', '-a']);
  assert.equal(withoutSandboxWarnings('WARNING: proceeding, even though …\nFailed to write file /etc/x\n'), 'Failed to write file /etc/x');
});

test("a sandbox's stray .git guard is removed only when it is an empty directory", (t) => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "guard-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const empty = path.join(dir, 'empty');
  const full = path.join(dir, 'full');
  const file = path.join(dir, 'file');
  fs.mkdirSync(empty);
  fs.mkdirSync(full);
  fs.writeFileSync(path.join(full, 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(file, 'x');
  for (const p of [empty, full, file, path.join(dir, 'absent')]) removeIfEmptyDir(p);
  assert.equal(fs.existsSync(empty), false);
  assert.equal(fs.existsSync(path.join(full, 'HEAD')), true);
  assert.equal(fs.existsSync(file), true);
});
