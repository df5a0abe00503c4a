// toolpass/1 adapter for Qwen Code's published tool layer
// (`@qwen-code/qwen-code`, pinned in package.json), driven in process: one
// `Config` per session, every call through `executeToolCall`, the wrapper
// around Qwen's real CoreToolScheduler. Nothing of Qwen's is modified.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { indexExports, load } from './lib/chunks.mjs';
import { RpcError, serve } from './lib/framing.mjs';
import { toDescriptor, toOutcome } from './lib/outcome.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, 'node_modules', '@qwen-code', 'qwen-code');

// Qwen writes logs and telemetry to stdout/stderr in places; stdout must
// carry protocol lines only.
const protocolOut = process.stdout.write.bind(process.stdout);
console.log = (...args) => process.stderr.write(args.join(' ') + '\n');
console.info = console.log;
console.debug = console.log;
console.warn = console.log;

if (!fs.existsSync(path.join(pkg, 'chunks'))) {
  process.stderr.write(
    `qwen-code adapter: ${pkg} is not installed; run \`just adapter-setup qwen-code\`\n`,
  );
  process.exit(3);
}
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
const qwen = await load(indexExports(path.join(pkg, 'chunks')), ['Config', 'executeToolCall']);

/** What this adapter can do through Qwen: prior reads are Qwen's own. */
const FEATURES = ['sessions', 'prior_read'];

/** Session config keys that are Qwen Config params of the same name. */
const PASSED_THROUGH = [
  'truncateToolOutputThreshold',
  'truncateToolOutputLines',
  'toolOutputBatchBudget',
  'approvalMode',
];

const sessions = new Map();
let nextSession = 0;

async function openSession({ root, config = {} }) {
  if (typeof root !== 'string' || !path.isAbsolute(root)) {
    throw new RpcError(-32602, 'root must be an absolute path');
  }
  // The session config's keys are Qwen's own settings; the ones mapped are
  // passed to Config as they are. Any other is refused rather than ignored,
  // since an ignored threshold would make a scenario pass untested.
  const unknown = Object.keys(config).filter((k) => !PASSED_THROUGH.includes(k));
  if (unknown.length > 0) {
    throw new RpcError(-32602, `config keys this adapter cannot map onto Qwen: ${unknown.join(', ')}`);
  }
  const passed = Object.fromEntries(PASSED_THROUGH.filter((k) => k in config).map((k) => [k, config[k]]));
  const sessionId = `qwen-${++nextSession}`;
  const settings = new qwen.Config({
    sessionId,
    targetDir: root,
    cwd: root,
    debugMode: false,
    model: 'none',
    approvalMode: 'yolo',
    interactive: false,
    chatRecording: false,
    telemetry: { enabled: false },
    usageStatisticsEnabled: false,
    enableManagedAutoMemory: false,
    enableManagedAutoDream: false,
    cronEnabled: false,
    ...passed,
  });
  await settings.initialize({ skipHooks: true, skipMcpDiscovery: true, skipFileCheckpointing: true });
  await settings.getToolRegistry().warmAll();
  const current = { config: settings, calls: 0, resultFilePaths: undefined };
  observeResultFilePaths(settings.getToolRegistry(), current);
  sessions.set(sessionId, current);
  return { sessionId };
}

/**
 * `resultFilePaths` is part of Qwen's ToolResult but not of what
 * `executeToolCall` returns, so each tool's `build` is wrapped to note it
 * as the invocation's `execute` returns. The wrappers pass every argument
 * and result through untouched: Qwen behaves exactly as unwrapped.
 */
function observeResultFilePaths(registry, current) {
  for (const tool of registry.getAllTools()) {
    const build = tool.build.bind(tool);
    tool.build = (...args) => {
      const invocation = build(...args);
      const execute = invocation.execute.bind(invocation);
      invocation.execute = async (...rest) => {
        const result = await execute(...rest);
        current.resultFilePaths = result?.resultFilePaths;
        return result;
      };
      return invocation;
    };
  }
}

function session(id) {
  const found = sessions.get(id);
  if (!found) throw new RpcError(-32010, `unknown session ${id}`);
  return found;
}

function listTools({ sessionId }) {
  const registry = session(sessionId).config.getToolRegistry();
  const byName = new Map(registry.getAllTools().map((t) => [t.name, t]));
  const tools = registry.getFunctionDeclarations().map((d) => toDescriptor(d, byName.get(d.name)));
  return { tools };
}

async function callTool({ name, arguments: args = {}, _meta }) {
  const context = _meta?.toolpass;
  if (!context) throw new RpcError(-32602, 'tools/call needs _meta.toolpass {sessionId, callId}');
  const current = session(context.sessionId);
  current.calls += 1;
  const request = {
    callId: context.callId ?? `call-${current.calls}`,
    name,
    args,
    isClientInitiated: false,
    prompt_id: `${context.sessionId}-${current.calls}`,
  };
  current.resultFilePaths = undefined;
  const response = await qwen.executeToolCall(current.config, request, new AbortController().signal);
  return toOutcome(response, { resultFilePaths: current.resultFilePaths });
}

const methods = {
  initialize: () => ({
    protocolVersion: 'toolpass/1',
    serverInfo: { name: 'qwen-code', version },
    capabilities: { tools: {}, toolpass: { version: 1, features: FEATURES } },
  }),
  'toolpass/session.open': openSession,
  'toolpass/session.close': ({ sessionId }) => {
    sessions.delete(sessionId);
    return {};
  },
  'tools/list': listTools,
  'tools/call': callTool,
};

await serve(
  async (method, params) => {
    const handler = methods[method];
    if (!handler) throw new RpcError(-32601, `method not found: ${method}`);
    return handler(params);
  },
  process.stdin,
  { write: protocolOut },
);
process.exit(0);
