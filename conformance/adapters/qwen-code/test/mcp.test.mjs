// Qwen's real MCP client against the repository's MCP test server, through
// the adapter: discovery before session.open answers, the deferred listing,
// tool_search and the tool_call proxy, and mcp.disconnect's seam. Skipped,
// naming what to do, without Qwen installed or the test server built.

import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { fixtureSession, mcpNotReady } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test("Qwen's McpClientManager discovers the test server's tools as deferred, reached by tool_search and tool_call", { skip: mcpNotReady(adapterDir) }, async (t) => {
  const config = { mcpServers: { notes: { command: 'toolpass-mcp-fixture', args: ['--dir', 'notes'], trust: true } } };
  const { peer, sessionId, call } = await fixtureSession(t, adapterDir, config);
  const listed = await peer.request('tools/list', { sessionId });
  const names = listed.tools.map((tool) => tool.name);
  assert.ok(names.includes('tool_call') && !names.includes('mcp__notes__read_note'), names.join(', '));
  const { deferredTools, deferredReminder } = listed._meta.toolpass;
  assert.ok(deferredTools.includes('mcp__notes__read_note'), deferredTools.join(', '));
  assert.match(deferredReminder, /### MCP servers\n#### notes\n- "mcp__notes__/);
  const found = await call('tool_search', { query: 'select:mcp__notes__read_note' });
  assert.match(found.llmContent, /^<functions>\n<function>\{"name":"mcp__notes__read_note"/);
  const read = await call('tool_call', { name: 'mcp__notes__read_note', arguments: { name: 'a.txt' } });
  assert.deepEqual([read.status, read.llmContent], ['success', 'alpha\n']);
  // The server's process is ended before the next call reaches Qwen; Qwen
  // reconnects and, the server trusted and the tool read-only, replays it.
  await peer.request('toolpass/fault', { sessionId, point: 'mcp.disconnect' });
  const replayed = await call('tool_call', { name: 'mcp__notes__read_note', arguments: { name: 'a.txt' } });
  assert.deepEqual([replayed.status, replayed.llmContent], ['success', 'alpha\n']);
  await assert.rejects(peer.request('toolpass/fault', { sessionId, point: 'fs.stat' }), /fs\.stat/);
  await peer.request('toolpass/session.close', { sessionId });
});
