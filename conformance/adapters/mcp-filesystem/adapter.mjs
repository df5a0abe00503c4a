// toolpass/1 adapter for @modelcontextprotocol/server-filesystem (pinned in
// package.json), the file tool layer many agents are given through MCP.
// Each session starts the published server, unmodified, over stdio with the
// session root as its one allowed directory, and talks to it with the MCP
// TypeScript SDK's client; toolpass calls are mapped onto its tools by
// lib/mapping.mjs. Nothing of the server's is changed or re-implemented.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { pickConfig, toolNotRegistered } from '../common/outcome.mjs';
import { callContext, claimStdout, runAdapter, Sessions, sessionRoot } from '../common/server.mjs';
import { clientFailure, refusal, TOOLS, toOutcome, toServerCall } from './lib/mapping.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, 'node_modules', '@modelcontextprotocol', 'server-filesystem');
const serverMain = path.join(pkg, 'dist', 'index.js');
const output = claimStdout();

if (!fs.existsSync(serverMain)) {
  process.stderr.write(`mcp-filesystem adapter: ${pkg} is not installed; run \`just adapter-setup mcp-filesystem\`\n`);
  process.exit(3);
}
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;

/**
 * Sessions only: a server process per session, confined to its root. No
 * prior_read (the server keeps no record of reads), no confirm (it has no
 * approval modes; edit_file's dryRun is a preview, not a question), no
 * cancel or updates (its tools take no signal and stream nothing), no mcp,
 * no spill_files (it never truncates).
 */
const FEATURES = ['sessions'];

const sessions = new Sessions('mcpfs');
const offered = Object.keys(TOOLS);

async function openSession(params) {
  const root = sessionRoot(params);
  // The server has no settings a session config could carry.
  pickConfig(params.config, [], 'the MCP filesystem server');
  const session = { root };
  const sessionId = await sessions.open(session, async () => {
    // The client advertises no `roots` capability, so the server keeps the
    // allowed directory of its command line (its oninitialized).
    session.client = new Client({ name: 'toolpass-mcp-filesystem-adapter', version: '1' });
    await session.client.connect(
      new StdioClientTransport({ command: process.execPath, args: [serverMain, root], env: { ...process.env }, stderr: 'inherit' }),
    );
  });
  return { sessionId };
}

async function closeSession({ sessionId }) {
  const session = sessions.get(sessionId);
  sessions.close(sessionId);
  await session.client?.close();
}

function listTools({ sessionId }) {
  sessions.get(sessionId);
  return { tools: Object.values(TOOLS).map((t) => t.descriptor) };
}

async function callTool(params) {
  const session = sessions.get(callContext(params).sessionId);
  const call = toServerCall(params.name, params.arguments ?? {}, session.root);
  if (!call) return toolNotRegistered(params.name, offered);
  if (call.refused) return refusal(call.refused);
  let result;
  try {
    result = await session.client.callTool({ name: call.name, arguments: call.arguments });
  } catch (e) {
    return clientFailure(e);
  }
  return toOutcome(call.name, result);
}

await runAdapter(
  {
    name: 'mcp-filesystem',
    version,
    description: "@modelcontextprotocol/server-filesystem's own tools, one server process per session",
    features: FEATURES,
    openSession,
    closeSession,
    listTools,
    callTool,
  },
  output,
);
