// toolpass/1 adapter for Qwen Code's published tool layer
// (`@qwen-code/qwen-code`, pinned in package.json), driven in process: one
// `Config` per session, every call through `executeToolCall`, the wrapper
// around Qwen's real CoreToolScheduler. Nothing of Qwen's is modified.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { callContext, claimStdout, runAdapter, Sessions, sessionRoot, toolRequest } from '../common/server.mjs';
import { indexExports, load } from './lib/chunks.mjs';
import { pickConfig } from '../common/outcome.mjs';
import { toDescriptor, toOutcome } from './lib/outcome.mjs';
import { pinnedRipgrep } from './lib/ripgrep.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, 'node_modules', '@qwen-code', 'qwen-code');

// Qwen logs to the console in places; stdout must carry protocol lines only.
const output = claimStdout();

if (!fs.existsSync(path.join(pkg, 'chunks'))) {
  process.stderr.write(
    `qwen-code adapter: ${pkg} is not installed; run \`just adapter-setup qwen-code\`\n`,
  );
  process.exit(3);
}
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
const ripgrep = pinnedRipgrep(pkg);
if (ripgrep instanceof Error) {
  process.stderr.write(`qwen-code adapter: ${ripgrep.message}\n`);
  process.exit(3);
}
const qwen = await load(indexExports(path.join(pkg, 'chunks')), ['Config', 'executeToolCall']);

/**
 * What this adapter can do through Qwen: prior reads are Qwen's own, and
 * spilled output is Qwen's `persistedOutputFiles`.
 */
const FEATURES = ['sessions', 'prior_read', 'spill_files'];

/** Session config keys that are Qwen Config params of the same name. */
const PASSED_THROUGH = [
  'truncateToolOutputThreshold',
  'truncateToolOutputLines',
  'toolOutputBatchBudget',
  'approvalMode',
];

const sessions = new Sessions('qwen');

async function openSession(params) {
  const root = sessionRoot(params);
  // The session config's keys are Qwen's own settings; the ones mapped are
  // passed to Config as they are.
  const passed = pickConfig(params.config, PASSED_THROUGH, 'Qwen');
  const current = { config: undefined, calls: 0, resultFilePaths: undefined };
  const sessionId = await sessions.open(current, async (id) => {
    current.config = await newConfig(id, root, passed);
  });
  observeResultFilePaths(current.config.getToolRegistry(), current);
  return { sessionId };
}

async function newConfig(sessionId, root, passed) {
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
    // Pinned (lib/ripgrep.mjs): grep_search is Qwen's RipGrepTool on its
    // bundled rg, checked to run above, whatever the machine's PATH holds.
    useRipgrep: true,
    useBuiltinRipgrep: true,
    ...passed,
  });
  await settings.initialize({ skipHooks: true, skipMcpDiscovery: true, skipFileCheckpointing: true });
  await settings.getToolRegistry().warmAll();
  // Qwen picks its grep tool at initialize and falls back quietly; a run on
  // the other backend would be judged as if it were this one.
  const grep = settings.getToolRegistry().getTool('grep_search')?.constructor?.name;
  if (grep !== 'RipGrepTool') {
    throw new Error(`Qwen registered ${grep ?? 'no grep_search'} instead of RipGrepTool on ${ripgrep.path}`);
  }
  return settings;
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

function listTools({ sessionId }) {
  const registry = sessions.get(sessionId).config.getToolRegistry();
  const byName = new Map(registry.getAllTools().map((t) => [t.name, t]));
  const tools = registry.getFunctionDeclarations().map((d) => toDescriptor(d, byName.get(d.name)));
  return { tools };
}

async function callTool(params) {
  const { name, arguments: args = {} } = params;
  const context = callContext(params);
  const current = sessions.get(context.sessionId);
  current.calls += 1;
  const request = toolRequest(context, current.calls, name, args);
  current.resultFilePaths = undefined;
  const response = await qwen.executeToolCall(current.config, request, new AbortController().signal);
  return toOutcome(response, { resultFilePaths: current.resultFilePaths });
}

await runAdapter(
  {
    name: 'qwen-code',
    version,
    description: `grep_search: Qwen's RipGrepTool on its bundled ripgrep ${ripgrep.version}`,
    features: FEATURES,
    openSession,
    closeSession: ({ sessionId }) => sessions.close(sessionId),
    listTools,
    callTool,
  },
  output,
);
