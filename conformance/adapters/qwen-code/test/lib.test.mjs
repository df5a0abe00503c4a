// The adapter's pure parts, without the Qwen bundle: locating exports by
// their `export {...}` blocks, and mapping a response to an Outcome.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';

import { indexExports, load } from '../lib/chunks.mjs';
import { toDescriptor, toDisplay, toOutcome } from '../lib/outcome.mjs';
import { bundledRipgrepPath, pinnedRipgrep } from '../lib/ripgrep.mjs';

test('exports are found by name whatever the chunk is called', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chunks-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'chunk-AB12.js'), 'const a = 1;\nfunction b() { return 2; }\nexport {\n  a as Config,\n  b\n};\n');
  fs.writeFileSync(path.join(dir, 'chunk-ZZ99.js'), 'const c = 3;\nexport { c as executeToolCall };\n');
  const index = indexExports(dir);
  assert.equal(path.basename(index.get('Config')), 'chunk-AB12.js');
  assert.equal(path.basename(index.get('b')), 'chunk-AB12.js');
  const loaded = await load(index, ['Config', 'executeToolCall']);
  assert.deepEqual(loaded, { Config: 1, executeToolCall: 3 });
  await assert.rejects(load(index, ['Config', 'Nope']), /exports no Nope/);
});

test('a success carries the output as llmContent and one text block', () => {
  const outcome = toOutcome({ responseParts: [{ functionResponse: { response: { output: 'ok\n' } } }] });
  assert.deepEqual(outcome, {
    content: [{ type: 'text', text: 'ok\n' }],
    isError: false,
    _meta: { toolpass: { status: 'success', llmContent: 'ok\n' } },
  });
});

test("an error carries Qwen's errorType as the canonical code", () => {
  const outcome = toOutcome({
    responseParts: [{ functionResponse: { response: { error: 'File not found: /x' } } }],
    error: new Error('File not found: /x'),
    errorType: 'file_not_found',
  });
  assert.equal(outcome.isError, true);
  assert.deepEqual(outcome._meta.toolpass, {
    status: 'error',
    llmContent: 'File not found: /x',
    error: { code: 'file_not_found', message: 'File not found: /x' },
  });
});

test('a declaration becomes an MCP tool with its kind under _meta.toolpass', () => {
  const descriptor = toDescriptor(
    { name: 'edit', description: 'Edits', parametersJsonSchema: { type: 'object', required: ['file_path'] } },
    { kind: 'edit', shouldDefer: false, alwaysLoad: true },
  );
  assert.deepEqual(descriptor, {
    name: 'edit',
    description: 'Edits',
    inputSchema: { type: 'object', required: ['file_path'] },
    _meta: { toolpass: { kind: 'edit', deferred: false, alwaysLoad: true } },
  });
});

test('observed resultFilePaths ride along on a success only', () => {
  const ok = toOutcome({ responseParts: [{ functionResponse: { response: { output: 'x' } } }] }, { resultFilePaths: ['/r/a.txt'] });
  assert.deepEqual(ok._meta.toolpass.resultFilePaths, ['/r/a.txt']);
  const failed = toOutcome({ error: new Error('no'), errorType: 'x', responseParts: [] }, { resultFilePaths: ['/r/a.txt'] });
  assert.equal(failed._meta.toolpass.resultFilePaths, undefined);
});

test('an errorType outside the canonical list is sent as unknown, with Qwen\'s message', () => {
  const failed = toOutcome({ error: new Error('later'), errorType: 'a_later_qwen_type', responseParts: [] });
  assert.deepEqual(failed._meta.toolpass.error, { code: 'unknown', message: 'later' });
});

test("an edit's FileDiff becomes a diff display with Qwen's model stat", () => {
  const outcome = toOutcome({
    responseParts: [{ functionResponse: { response: { output: 'ok' } } }],
    resultDisplay: {
      fileDiff: '--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n',
      fileName: 'd.txt',
      filePath: '/r/d.txt',
      originalContent: 'old\n',
      newContent: 'new\n',
      diffStat: { model_added_lines: 1, model_removed_lines: 1 },
    },
  });
  assert.deepEqual(outcome._meta.toolpass.display, {
    type: 'diff',
    path: '/r/d.txt',
    old: 'old\n',
    new: 'new\n',
    stat: { addedLines: 1, removedLines: 1 },
    diff: '--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n',
  });
});

test('a created file has no old content; the stat is counted off the diff when Qwen gives none', () => {
  const display = toDisplay({ fileDiff: '--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n', fileName: 'n.txt', originalContent: null, newContent: 'x\ny\n' });
  assert.deepEqual(display, { type: 'diff', path: 'n.txt', new: 'x\ny\n', stat: { addedLines: 2, removedLines: 0 }, diff: '--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n' });
});

test("a declined edit keeps its proposal's diff on display, as Qwen's scheduler does", () => {
  const outcome = toOutcome(
    {
      responseParts: [{ functionResponse: { response: { error: '[Operation Cancelled] Reason: User did not allow tool call' } } }],
      resultDisplay: { fileDiff: '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n', filePath: '/r/a', originalContent: 'x\n', newContent: 'y\n' },
    },
    { status: 'cancelled' },
  );
  assert.equal(outcome._meta.toolpass.status, 'cancelled');
  assert.deepEqual(
    [outcome._meta.toolpass.display.type, outcome._meta.toolpass.display.old, outcome._meta.toolpass.display.new],
    ['diff', 'x\n', 'y\n'],
  );
});

test('text displays, spilled output, and displays with no toolpass form', () => {
  const outcome = toOutcome({
    responseParts: [{ functionResponse: { response: { output: 'cut' } } }],
    resultDisplay: 'Found 3 matches',
    persistedOutputFiles: ['/home/x/.qwen/tmp/h/grep.output'],
  });
  assert.deepEqual(outcome._meta.toolpass.display, { type: 'text', text: 'Found 3 matches' });
  assert.equal(outcome._meta.toolpass.persistedOutputPath, '/home/x/.qwen/tmp/h/grep.output');
  assert.equal(toDisplay({ ansiOutput: [] }), undefined);
  assert.equal(toDisplay(''), undefined);
});

test("the bundled ripgrep's path follows Qwen's layout", () => {
  assert.equal(bundledRipgrepPath('/p', 'linux', 'x64'), path.join('/p/vendor/ripgrep/x64-linux/rg'));
  assert.equal(bundledRipgrepPath('/p', 'win32', 'arm64'), path.join('/p/vendor/ripgrep/arm64-win32/rg.exe'));
  assert.equal(bundledRipgrepPath('/p', 'freebsd', 'x64'), null);
});

test('the pinned ripgrep must be executable and answer like ripgrep', (t) => {
  const pkg = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-pin-'));
  t.after(() => fs.rmSync(pkg, { recursive: true, force: true }));
  const rg = bundledRipgrepPath(pkg, 'linux', 'x64');
  fs.mkdirSync(path.dirname(rg), { recursive: true });

  assert.match(pinnedRipgrep(pkg, 'linux', 'x64').message, /not executable \(ENOENT\).*adapter-setup qwen-code/);
  fs.writeFileSync(rg, '#!/bin/sh\necho "ripgrep 15.0.0 (rev 3a612f88b8)"\n', { mode: 0o644 });
  assert.match(pinnedRipgrep(pkg, 'linux', 'x64').message, /not executable \(EACCES\)/);
  fs.chmodSync(rg, 0o755);
  assert.deepEqual(pinnedRipgrep(pkg, 'linux', 'x64'), { path: rg, version: '15.0.0' });
  fs.writeFileSync(rg, '#!/bin/sh\necho "grep (GNU grep) 3.8"\n');
  assert.match(pinnedRipgrep(pkg, 'linux', 'x64').message, /no ripgrep banner/);
});
