// The session config, deferred listing, classifier input and fault seam,
// without the Qwen bundle: Qwen's registry is faked with the members the
// adapter reads.

import assert from 'node:assert/strict';
import test from 'node:test';

import { classifierInput } from '../lib/classifier.mjs';
import { deferredListing } from '../lib/deferred.mjs';
import { Faults, mcpTarget } from '../lib/faults.mjs';
import { adapterFeatures } from '../lib/features.mjs';
import { awaitingOutcome } from '../../common/outcome.mjs';
import { toDisplay } from '../lib/outcome.mjs';
import { qwenSessionParams } from '../lib/session-config.mjs';

test("the session config maps onto Qwen's Config: passed through, mcpServers, and only the proxy model", () => {
  const params = qwenSessionParams(
    {
      approvalMode: 'default',
      disabledTools: ['mcp__my notes__read_note'],
      deferredTools: 'proxy',
      mcpServers: { notes: { command: 'toolpass-mcp-fixture', args: ['--dir', 'notes'], trust: true } },
    },
    '/r',
  );
  assert.deepEqual(params, {
    approvalMode: 'default',
    disabledTools: ['mcp__my notes__read_note'],
    mcpServers: { notes: { command: 'toolpass-mcp-fixture', args: ['--dir', 'notes'], trust: true, cwd: '/r' } },
  });
  assert.deepEqual(qwenSessionParams({}, '/r'), {});
  assert.deepEqual(qwenSessionParams(undefined, '/r'), {});
  assert.throws(() => qwenSessionParams({ deferredTools: 'reveal' }, '/r'), (e) => e.code === -32602 && /only the proxy model/.test(e.message));
  assert.throws(() => qwenSessionParams({ env: { A: '1' } }, '/r'), (e) => e.code === -32602 && /env/.test(e.message));
});

test('features: deferred tools in the proxy model, mcp, the collaboration tools, classifier input, batches, mcp.disconnect, call.rendezvous', () => {
  const features = adapterFeatures({});
  for (const f of ['deferred_tools', 'deferred_tools:proxy', 'mcp', 'collab_tools', 'classifier_input', 'batch', 'fault:mcp.disconnect', 'fault:call.rendezvous']) {
    assert.ok(features.includes(f), f);
  }
  assert.ok(!features.includes('deferred_tools:reveal'), "0.24.4's tool_search does not reveal");
});

/** A registry with the members the adapter reads; `tools` by name. */
function fakeRegistry(tools, { revealed = [], clients = new Map() } = {}) {
  return {
    getTool: (name) => tools[name],
    getAllToolNames: () => Object.keys(tools),
    getDeferredToolSummary: () =>
      Object.values(tools)
        .filter((t) => t.deferred)
        .map((t) => ({ name: t.name, description: t.description }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    isDeferredToolRevealed: (name) => revealed.includes(name),
    getMcpClientManager: () => ({ clients }),
  };
}

test("the deferred listing is Qwen's summary less what is revealed, with its reminder", () => {
  const registry = fakeRegistry(
    {
      web_fetch: { name: 'web_fetch', deferred: true },
      mcp__notes__read_note: { name: 'mcp__notes__read_note', deferred: true, serverName: 'notes' },
      read_file: { name: 'read_file' },
    },
    { revealed: ['web_fetch'] },
  );
  const seen = [];
  const listing = deferredListing(registry, (r) => (seen.push(r), '<system-reminder>\nx\n</system-reminder>'));
  assert.deepEqual(listing, { _meta: { toolpass: { deferredTools: ['mcp__notes__read_note'], deferredReminder: '<system-reminder>\nx\n</system-reminder>' } } });
  assert.deepEqual(seen, [registry]);
  assert.deepEqual(deferredListing(registry, () => null)._meta.toolpass, { deferredTools: ['mcp__notes__read_note'] }, 'no reminder when Qwen sends none');
  assert.deepEqual(deferredListing(fakeRegistry({ read_file: { name: 'read_file' } }), () => 'never'), {}, 'nothing deferred, nothing listed');
});

test("classifier input: the tool's projection, {} for '' and for MCP tools, raw arguments otherwise", () => {
  const registry = fakeRegistry({
    run_shell_command: { toAutoClassifierInput: (p) => ({ command: p.command, cwd: p.directory ?? '/root' }) },
    send_message: { toAutoClassifierInput: (p) => ({ to: p.to, task_id: p.task_id, message: p.message }) },
    todo_write: { toAutoClassifierInput: () => '' },
    mcp__notes__write_note: { toAutoClassifierInput: () => undefined },
    odd: { toAutoClassifierInput: () => undefined },
    broken: {
      toAutoClassifierInput: () => {
        throw new Error('no');
      },
    },
  });
  assert.deepEqual(classifierInput(registry, 'run_shell_command', { command: 'ls' }), { command: 'ls', cwd: '/root' });
  assert.deepEqual(classifierInput(registry, 'send_message', { to: 'bob', message: 'hi' }), { to: 'bob', message: 'hi' }, 'undefined members are not there');
  assert.deepEqual(classifierInput(registry, 'todo_write', { todos: [] }), {});
  assert.deepEqual(classifierInput(registry, 'mcp__notes__write_note', { name: 'a' }), {});
  assert.deepEqual(classifierInput(registry, 'odd', { a: 1 }), { a: 1 });
  assert.deepEqual(classifierInput(registry, 'broken', { a: 1 }), { a: 1 });
  assert.deepEqual(classifierInput(registry, 'unknown_tool', null), {});
  const parked = awaitingOutcome({ type: 'info', title: 't', prompt: 'p' }, { command: 'ls' });
  assert.deepEqual(parked._meta.toolpass.classifierInput, { command: 'ls' });
  assert.equal('classifierInput' in awaitingOutcome({ type: 'info', title: 't', prompt: 'p' })._meta.toolpass, false);
});

test('a todo list keeps its dependencies', () => {
  const display = toDisplay({ type: 'todo_list', todos: [{ id: '1', content: 'a', status: 'pending', blockedBy: [] }, { id: '2', content: 'b', status: 'pending', blockedBy: ['1'] }], changes: {} });
  assert.deepEqual(display, { type: 'todos', todos: [{ id: '1', content: 'a', status: 'pending' }, { id: '2', content: 'b', status: 'pending', blockedBy: ['1'] }] });
});

test("mcp.disconnect closes the transport of the server the next MCP call reaches, tool_call's target included", async () => {
  const closed = [];
  const client = (name) => ({ transport: { close: async () => closed.push(name) } });
  const registry = fakeRegistry(
    {
      read_file: { name: 'read_file' },
      tool_call: { name: 'tool_call' },
      mcp__notes__read_note: { name: 'mcp__notes__read_note', serverName: 'notes' },
      mcp__other__x: { name: 'mcp__other__x', serverName: 'other' },
    },
    { clients: new Map([['notes', client('notes')], ['other', client('other')]]) },
  );
  assert.equal(mcpTarget(registry, 'tool_call', { name: 'MCP__NOTES__READ_NOTE' }).serverName, 'notes');
  assert.equal(mcpTarget(registry, 'read_file', {}), undefined);
  const faults = new Faults();
  faults.arm({ point: 'mcp.disconnect', skip: 1 });
  await faults.beforeCall(registry, 'read_file', {});
  assert.deepEqual(closed, [], 'a call of a built-in tool is not an MCP operation');
  await faults.beforeCall(registry, 'mcp__other__x', {});
  assert.deepEqual(closed, [], 'skipped');
  await faults.beforeCall(registry, 'tool_call', { name: 'mcp__notes__read_note', arguments: {} });
  assert.deepEqual(closed, ['notes']);
  await faults.beforeCall(registry, 'mcp__notes__read_note', {});
  assert.deepEqual(closed, ['notes'], 'used up');
  assert.throws(() => faults.arm({ point: 'declarations.update' }), (e) => e.code === -32601);
  assert.throws(() => faults.arm({ point: 'mcp.disconnect', times: -1 }), (e) => e.code === -32602);
});
