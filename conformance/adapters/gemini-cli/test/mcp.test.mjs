// Gemini CLI's real MCP client against the repository's MCP test server,
// through the adapter: the server's tools declared under Gemini's own names
// once session.open answers, a call reaching the server, and in default
// mode the mcp confirmation an untrusted server's tool asks. Skipped,
// naming what to do, without Gemini installed or the test server built.

import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { fixtureSession, mcpNotReady } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test("Gemini's McpClientManager declares the test server's tools and calls reach it", { skip: mcpNotReady(adapterDir) }, async (t) => {
  const config = { mcpServers: { notes: { command: 'toolpass-mcp-fixture', args: ['--dir', 'notes'], trust: true, excludeTools: ['write_note'] } } };
  const { peer, init, sessionId, call } = await fixtureSession(t, adapterDir, config);
  assert.ok(init.capabilities.toolpass.features.includes('mcp'));
  assert.ok(!init.capabilities.toolpass.features.includes('deferred_tools'), 'Gemini declares every MCP tool at once');
  const { tools } = await peer.request('tools/list', { sessionId });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  assert.ok(byName.has('mcp_notes_read_note'), [...byName.keys()].join(', '));
  assert.ok(!byName.has('mcp_notes_write_note'), 'excludeTools is applied');
  assert.equal(byName.get('mcp_notes_read_note').description, 'Reads a note from the notes directory and returns its text.');
  const read = await call('mcp_notes_read_note', { name: 'a.txt' });
  // Gemini hands the model an MCP server's text as untrusted context.
  assert.deepEqual([read.status, read.llmContent], ['success', '<untrusted_context>\nalpha\n\n</untrusted_context>']);
  await peer.request('toolpass/session.close', { sessionId });
});

test("in default mode an untrusted server's tool asks with an mcp confirmation; always is for the tool", { skip: mcpNotReady(adapterDir) }, async (t) => {
  const config = { approvalMode: 'default', mcpServers: { notes: { command: 'toolpass-mcp-fixture', args: ['--dir', 'notes'] } } };
  const { peer, sessionId, call } = await fixtureSession(t, adapterDir, config);
  // An ACP-mode Config still awaits its servers before session.open answers.
  const { tools } = await peer.request('tools/list', { sessionId });
  assert.ok(tools.some((tool) => tool.name === 'mcp_notes_read_note'), tools.map((tool) => tool.name).join(', '));
  const asked = await call('mcp_notes_read_note', { name: 'a.txt' });
  assert.equal(asked.status, 'awaiting_confirmation', asked.llmContent);
  assert.deepEqual(asked.confirmation, {
    type: 'mcp',
    title: 'Confirm MCP Tool Execution',
    serverName: 'notes',
    toolName: 'read_note',
    // Gemini's DiscoveredMCPTool displayName.
    toolDisplayName: 'read_note (notes MCP Server)',
  });
  const confirm = async (callId, outcome) => (await peer.request('toolpass/confirm', { sessionId, callId, outcome }))._meta.toolpass;
  const read = await confirm('c1', 'proceed_always');
  assert.equal(read.status, 'success', read.llmContent);
  const again = await call('mcp_notes_read_note', { name: 'a.txt' });
  assert.equal(again.status, 'success', 'ProceedAlwaysTool allows the tool for the session');
  await peer.request('toolpass/session.close', { sessionId });
});
