#!/usr/bin/env node
// Regenerates reference/toolpass-core/tests/qwen_budget/cases.json: what Qwen
// Code's own batch budget (`finalizeToolResponses`,
// packages/core/src/tools/tool-response-finalizer.ts) and persisted stub
// (`persistAndTruncateToolResult`, packages/core/src/tools/truncation.ts) make
// of generated batches and results, as bundled in the published package.
// The reference's `budget` module is tested against them
// (reference/toolpass-core/tests/qwen_budget/main.rs).
//
// Usage (or `just qwen-budget-cases`): node scripts/qwen-budget-cases.mjs <extracted @qwen-code/qwen-code package dir> \
//          > reference/toolpass-core/tests/qwen_budget/cases.json
// The package directory is the one holding chunks/ (npm pack, then tar -x).
// Spill files are written to /tmp/qwen-budget-spill, made afresh and removed:
// a fixed path, because its length is part of every header that names a file.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const packageDir = process.argv[2];
if (!packageDir) {
  console.error('usage: qwen-budget-cases.mjs <qwen-code package dir>');
  process.exit(2);
}
const chunks = path.join(packageDir, 'chunks');
const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
const exporting = (name) => {
  const chunk = fs
    .readdirSync(chunks)
    .filter((file) => file.endsWith('.js'))
    .find((file) => new RegExp(`export \\{[^}]*\\b${name}\\b`).test(fs.readFileSync(path.join(chunks, file), 'utf8')));
  if (!chunk) {
    console.error(`no chunk of ${chunks} exports ${name}`);
    process.exit(1);
  }
  return import(path.join(chunks, chunk));
};
const { finalizeToolResponses } = await exporting('finalizeToolResponses');
const { persistAndTruncateToolResult } = await exporting('persistAndTruncateToolResult');

const dir = '/tmp/qwen-budget-spill';
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { mode: 0o700 });
const config = (budget) => ({
  getToolOutputBatchBudget: () => budget,
  getToolResultBytesWritten: () => 0,
  trackToolResultBytes: () => {},
  getTruncateToolOutputThreshold: () => 25_000,
  getTruncateToolOutputLines: () => 1_000,
  getExecutionEnvironment: () => undefined,
  getSessionId: () => 'budget-cases',
  storage: { getToolResultsDir: () => dir, getProjectTempDir: () => dir },
});

// A small deterministic generator (mulberry32) so the corpus is the same on
// every run.
let state = 0x2545f491;
const next = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(next() * list.length)];
const pieces = ['a', 'b', '\n', 'é', '中', '😀', 'line\n', 'x'.repeat(20), '😀😀😀'];
const text = (max) => {
  let out = '';
  const goal = Math.floor(next() * max);
  while (out.length < goal) out += pick(pieces);
  return out;
};
const ids = ['call', 'call', 'call-1', 'dir/call', '..', 'c_9'];

const batches = [];
for (let i = 0; i < 80; i++) {
  const entries = [];
  const count = 1 + Math.floor(next() * 5);
  for (let e = 0; e < count; e++) {
    const parts = [];
    const partCount = 1 + Math.floor(next() * 2);
    for (let p = 0; p < partCount; p++) {
      const kind = next();
      if (kind < 0.55) parts.push({ functionResponse: { id: 'x', name: 'shell', response: { output: text(200) } } });
      else if (kind < 0.75) parts.push({ functionResponse: { id: 'x', name: 'shell', response: { error: text(200) } } });
      else if (kind < 0.9) parts.push({ text: text(120) });
      else parts.push({ inlineData: { mimeType: 'image/png', data: 'AAAA' } });
    }
    const decided = next();
    const persisted = decided < 0.7 ? undefined : decided < 0.85 ? [] : ['/old/out.output'];
    entries.push({ callId: pick(ids), toolName: 'shell', responseParts: parts, persistedOutputFiles: persisted });
  }
  const budget = Math.floor(next() * 500);
  const input = JSON.parse(JSON.stringify(entries));
  const result = await finalizeToolResponses(config(budget), entries, undefined, false, false);
  batches.push({
    budget,
    entries: input,
    result: result.map((entry) => ({
      responseParts: entry.responseParts,
      persistedOutputFiles: entry.persistedOutputFiles ?? null,
    })),
  });
}

const stubs = [];
for (let i = 0; i < 10; i++) {
  let content = text(2_300);
  if (i % 3 === 0) content = `${'a'.repeat(1_999)}😀${content}`;
  if (i % 4 === 1) content = `<persisted-output>${content}</system-reminder>`;
  const callId = i % 5 === 4 ? '..' : `call_${i}`;
  const persisted = await persistAndTruncateToolResult(callId, 'shell', content, config(200_000));
  stubs.push({
    callId,
    content,
    digest: crypto.createHash('sha256').update(content).digest('hex'),
    // Where `generatePreview`'s `slice(0, 2000)` keeps half of a surrogate
    // pair, the half is written as U+FFFD, as a JSON reader decodes it; the
    // reference keeps the whole pair out instead (its one difference here).
    stub: persisted.content.toWellFormed(),
  });
}
fs.rmSync(dir, { recursive: true, force: true });

process.stdout.write(`${JSON.stringify({ version, spill: dir, batches, stubs })}\n`);
