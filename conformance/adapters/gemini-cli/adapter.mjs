// toolpass/1 adapter for Gemini CLI's published tool layer
// (`@google/gemini-cli-core`, pinned in package.json), driven in process
// with no model: one `Config` per session, every call through Gemini's real
// `Scheduler.schedule` (validation, policy, execution, truncation). Tool
// names and arguments are mapped in lib/mapping.mjs; nothing of Gemini's is
// modified.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { notificationLine } from '../common/framing.mjs';
import { pickConfig } from '../common/outcome.mjs';
import { callContext, claimStdout, runAdapter, Sessions, sessionRoot, toolRequest } from '../common/server.mjs';
import { progressSender } from '../common/updates.mjs';
import { GEMINI_TOOLS, MAPPABLE_CONFIG, toConfigParams, toDescriptor, toGeminiCall } from './lib/mapping.mjs';
import { toOutcome } from './lib/outcome.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, 'node_modules', '@google', 'gemini-cli-core');

// Gemini logs to the console in places; stdout must carry protocol lines only.
const output = claimStdout();

if (!fs.existsSync(path.join(pkg, 'dist', 'index.js'))) {
  process.stderr.write(`gemini-cli adapter: ${pkg} is not installed; run \`just adapter-setup gemini-cli\`\n`);
  process.exit(3);
}
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
const gemini = await import('@google/gemini-cli-core');

/**
 * The model Gemini's tools are told they serve. It picks the declaration
 * set and write_file's unescaping rule (a Gemini 2 model: no aggressive
 * unescape); no request is ever sent to it.
 */
const MODEL = 'gemini-2.5-pro';

/**
 * What Gemini really does: sessions (a Config each); spill_files (the
 * scheduler's `outputFile`, where it saves output it truncates); cancel
 * (the call's request signal is the AbortSignal `Scheduler.schedule`
 * takes); updates (a running call's `liveOutput`, which the scheduler
 * publishes on its message bus); mcp (its McpClientManager connects the
 * session's `mcpServers` during `config.initialize()`, which a
 * non-interactive Config awaits). No `prior_read`: Gemini has no
 * read-before-edit check; no `deferred_tools`: Gemini declares every MCP
 * tool at once and has no tool_search.
 */
const FEATURES = ['sessions', 'spill_files', 'cancel', 'updates', 'mcp'];

/** A baseLlmClient that fails loudly: with no model, nothing may ask one. */
const NO_MODEL = new Proxy(
  {},
  {
    get: (_target, key) =>
      key === 'then'
        ? undefined
        : () => {
            throw new Error(`gemini-cli adapter: Gemini asked its LLM client (${String(key)}); there is no model`);
          },
  },
);

const sessions = new Sessions('gemini');

async function openSession(params) {
  const root = sessionRoot(params);
  const overrides = toConfigParams(pickConfig(params.config, MAPPABLE_CONFIG, 'Gemini'), root);
  const session = { calls: 0 };
  const sessionId = await sessions.open(session, async (id) => {
    session.config = await newConfig(id, root, overrides);
    session.schedulerId = `toolpass-${id}`;
    session.scheduler = new gemini.Scheduler({
      context: session.config,
      schedulerId: session.schedulerId,
      getPreferredEditor: () => undefined,
    });
  });
  return { sessionId };
}

async function newConfig(sessionId, root, params) {
  const approvalMode = params.approvalMode ?? gemini.ApprovalMode.YOLO;
  // The policy rules Gemini CLI's own host loads for a session
  // (`createPolicyEngineConfig`: the TOML policies the package ships, e.g.
  // read-only tools allowed in plan mode, write tools asking in default
  // mode, `ask_user` denied when not interactive). Without them Gemini's
  // engine asks for every tool in any mode but yolo.
  const policyEngineConfig = await gemini.createPolicyEngineConfig({}, approvalMode, undefined, false);
  const settings = new gemini.Config({
    sessionId,
    targetDir: root,
    cwd: root,
    debugMode: false,
    model: MODEL,
    interactive: false,
    policyEngineConfig,
    coreTools: GEMINI_TOOLS,
    telemetry: { enabled: false },
    usageStatisticsEnabled: false,
    checkpointing: false,
    // Pinned: Gemini CLI's published packages (@google/gemini-cli and
    // -core 0.61.0) bundle no ripgrep, so a normal install gets the
    // built-in GrepTool unless an `rg` sits in a trusted system directory;
    // pinning it off makes every machine judge that GrepTool.
    useRipgrep: false,
    ...params,
    approvalMode,
  });
  await settings.initialize();
  // write_file asks for the client eagerly; it must never be used.
  settings.baseLlmClient = NO_MODEL;
  return settings;
}

async function closeSession({ sessionId }) {
  const session = sessions.get(sessionId);
  sessions.close(sessionId);
  session.scheduler?.dispose?.();
  await session.config?.dispose?.();
}

function listTools({ sessionId }) {
  const registry = sessions.get(sessionId).config.getToolRegistry();
  const tools = registry
    .getFunctionDeclarations(MODEL)
    .map((d) => toDescriptor(d, { mcp: registry.getTool(d.name) instanceof gemini.DiscoveredMCPTool }))
    .filter((d) => d !== undefined);
  return { tools };
}

async function callTool(params, { signal = new AbortController().signal } = {}) {
  const context = callContext(params);
  const session = sessions.get(context.sessionId);
  const call = toGeminiCall(params.name, params.arguments ?? {});
  const request = toolRequest(context, ++session.calls, call.name, call.args);
  const onOutput = progressSender(params._meta?.progressToken, (method, note) => output.write(notificationLine(method, note)));
  const unfollow = onOutput ? followLiveOutput(session, request.callId, onOutput) : () => {};
  try {
    const [done] = await session.scheduler.schedule([request], signal);
    return toOutcome(done);
  } finally {
    unfollow();
  }
}

/**
 * Sends each new `liveOutput` of the call `callId` to `onOutput`: Gemini's
 * scheduler keeps a running tool's `updateOutput` as the call's
 * liveOutput and publishes every state change of its calls as
 * TOOL_CALLS_UPDATE on the session's message bus. Returns the unsubscribe.
 */
function followLiveOutput(session, callId, onOutput) {
  const bus = session.config.getMessageBus();
  let last;
  const listener = (message) => {
    if (message.schedulerId !== session.schedulerId) return;
    const live = message.toolCalls?.find((c) => c.request?.callId === callId)?.liveOutput;
    if (live === undefined || live === last) return;
    last = live;
    onOutput(live);
  };
  bus.subscribe(gemini.MessageBusType.TOOL_CALLS_UPDATE, listener);
  return () => bus.unsubscribe(gemini.MessageBusType.TOOL_CALLS_UPDATE, listener);
}

await runAdapter(
  {
    name: 'gemini-cli',
    version,
    description: "grep_search: Gemini's GrepTool (no ripgrep is bundled; useRipgrep pinned off)",
    features: FEATURES,
    openSession,
    closeSession,
    listTools,
    callTool,
  },
  output,
);
