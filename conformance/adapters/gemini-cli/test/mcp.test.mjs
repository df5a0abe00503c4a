// Gemini CLI's real MCP client against the repository's MCP test server,
// through the adapter: the server's tools declared under Gemini's own names
// once session.open answers, and a call reaching the server. Skipped,
// naming what to do, without Gemini installed or the test server built.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { connectWithFixture, mcpNotReady } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test("Gemini's McpClientManager declares the test server's tools and calls reach it", { skip: mcpNotReady(adapterDir) }, async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolpass-gemini-mcp-')));
  fs.mkdirSync(path.join(root, 'notes'));
  fs.writeFileSync(path.join(root, 'notes', 'a.txt'), 'alpha\n');
  const peer = connectWithFixture(adapterDir);
  t.after(async () => {
    await peer.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const init = await peer.request('initialize', { protocolVersion: 'toolpass/1', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  assert.ok(init.capabilities.toolpass.features.includes('mcp'));
  assert.ok(!init.capabilities.toolpass.features.includes('deferred_tools'), 'Gemini declares every MCP tool at once');
  const config = { mcpServers: { notes: { command: 'toolpass-mcp-fixture', args: ['--dir', 'notes'], trust: true, excludeTools: ['write_note'] } } };
  const { sessionId } = await peer.request('toolpass/session.open', { root, config });
  const { tools } = await peer.request('tools/list', { sessionId });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  assert.ok(byName.has('mcp_notes_read_note'), [...byName.keys()].join(', '));
  assert.ok(!byName.has('mcp_notes_write_note'), 'excludeTools is applied');
  assert.equal(byName.get('mcp_notes_read_note').description, 'Reads a note from the notes directory and returns its text.');
  const read = await peer.request('tools/call', {
    name: 'mcp_notes_read_note',
    arguments: { name: 'a.txt' },
    _meta: { toolpass: { sessionId, callId: 'c1' } },
  });
  // Gemini hands the model an MCP server's text as untrusted context.
  assert.deepEqual([read._meta.toolpass.status, read._meta.toolpass.llmContent], ['success', '<untrusted_context>\nalpha\n\n</untrusted_context>']);
  await peer.request('toolpass/session.close', { sessionId });
});
