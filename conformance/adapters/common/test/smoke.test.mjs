// Every adapter's smoke test: its real peer reads and edits one file
// through toolpass/1 (../smoke.mjs). An adapter whose peer is not
// installed is skipped, the skip naming the setup command.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { notInstalled, smoke } from '../smoke.mjs';

const adapters = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Adapter directories: a `run` program and the `adapter.mjs` it starts. */
const names = fs
  .readdirSync(adapters)
  .filter((name) => fs.existsSync(path.join(adapters, name, 'run')))
  .filter((name) => fs.existsSync(path.join(adapters, name, 'adapter.mjs')))
  .sort();

test('every adapter directory is smoke-tested', () => {
  assert.deepEqual(names, ['codex-apply-patch', 'gemini-cli', 'mcp-filesystem', 'opencode', 'qwen-code']);
});

for (const name of names) {
  const dir = path.join(adapters, name);
  test(`smoke: ${name} reads and edits a file through its real peer`, { skip: notInstalled(dir), timeout: 180_000 }, () =>
    smoke(dir),
  );
}

test('a peer that is not installed is named with the command that installs it', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: { '@x/peer': '1.0.0' } }));
  assert.match(notInstalled(dir), /^@x\/peer not installed: run `just adapter-setup peer-\w+`$/);
  fs.mkdirSync(path.join(dir, 'node_modules', '@x', 'peer'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules', '@x', 'peer', 'package.json'), '{}');
  assert.equal(notInstalled(dir), undefined);
});
