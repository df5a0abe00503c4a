// A session's mcpServers as the Gemini CLI family's mcpServers settings.

import assert from 'node:assert/strict';
import test from 'node:test';

import { mcpServerSettings } from '../mcp.mjs';

test("each server keeps toolpass's members under their own names; cwd is resolved against the root", () => {
  const servers = {
    notes: {
      command: 'toolpass-mcp-fixture',
      args: ['--dir', 'notes'],
      env: { A: '1' },
      timeout: 500,
      trust: true,
      includeTools: ['read_note'],
      excludeTools: ['write_note'],
    },
    elsewhere: { command: 'srv', cwd: 'sub/dir' },
    absolute: { command: 'srv', cwd: '/opt/x' },
  };
  assert.deepEqual(mcpServerSettings(servers, '/r'), {
    notes: { ...servers.notes, cwd: '/r' },
    elsewhere: { command: 'srv', cwd: '/r/sub/dir' },
    absolute: { command: 'srv', cwd: '/opt/x' },
  });
});

test('no servers is undefined; a server without a command or with an unknown member is refused naming it', () => {
  assert.equal(mcpServerSettings(undefined, '/r'), undefined);
  assert.deepEqual(mcpServerSettings({}, '/r'), {});
  assert.throws(() => mcpServerSettings({ s: { args: [] } }, '/r'), (e) => e.code === -32602 && /mcpServers\.s needs a command/.test(e.message));
  assert.throws(() => mcpServerSettings({ s: { command: 'x', url: 'http://h' } }, '/r'), (e) => e.code === -32602 && /mcpServers\.s .*url/.test(e.message));
  assert.throws(() => mcpServerSettings([], '/r'), (e) => e.code === -32602);
});
