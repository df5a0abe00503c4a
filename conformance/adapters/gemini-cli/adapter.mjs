// toolpass/1 adapter for Gemini CLI's published tool layer
// (`@google/gemini-cli-core`, pinned in package.json), driven in process
// with no model: one `Config` per session, every call through Gemini's real
// `Scheduler.schedule` (validation, policy, confirmation, execution,
// truncation), a Scheduler per call (lib/calls.mjs). Tool names and
// arguments are mapped in lib/mapping.mjs, confirmations in
// lib/confirmation.mjs; nothing of Gemini's is modified.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { notificationLine } from '../common/framing.mjs';
import { parkedCall, parkOutcome, refuseInFlight } from '../common/calls.mjs';
import { pickConfig } from '../common/outcome.mjs';
import { callContext, claimStdout, runAdapter, Sessions, sessionRoot, toolRequest } from '../common/server.mjs';
import { progressSender } from '../common/updates.mjs';
import { startCall } from './lib/calls.mjs';
import { toConfirmation, toGeminiAnswer } from './lib/confirmation.mjs';
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
 * (the call's request signal aborts the AbortSignal `Scheduler.schedule`
 * takes); updates (a running call's `liveOutput`, which the scheduler
 * publishes on its message bus); mcp (its McpClientManager connects the
 * session's `mcpServers` during `config.initialize()`, which a
 * non-interactive or ACP Config awaits); confirm (where its policy engine
 * asks, the scheduler parks the call at `awaiting_approval` until a
 * TOOL_CONFIRMATION_RESPONSE answers it, lib/calls.mjs). No `prior_read`:
 * Gemini has no read-before-edit check; no `deferred_tools`: Gemini
 * declares every MCP tool at once and has no tool_search.
 */
const FEATURES = ['sessions', 'spill_files', 'cancel', 'updates', 'mcp', 'confirm'];

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
  const session = { calls: 0, inFlight: new Map() };
  const sessionId = await sessions.open(session, async (id) => {
    session.id = id;
    session.config = await newConfig(id, root, overrides);
  });
  return { sessionId };
}

async function newConfig(sessionId, root, params) {
  const approvalMode = params.approvalMode ?? gemini.ApprovalMode.YOLO;
  // A session that may ask is run as Gemini's ACP agent runs one (`gemini
  // --acp`: interactive and acpMode), a host that answers confirmations out
  // of band: its policy asks where a headless run's denies, the scheduler
  // parks such a call, and `initialize()` still awaits the MCP servers. A
  // yolo session never asks and stays headless, as before.
  const asks = approvalMode !== gemini.ApprovalMode.YOLO;
  // The policy rules Gemini CLI's own host loads for a session
  // (`createPolicyEngineConfig`: the TOML policies the package ships, e.g.
  // read-only tools allowed in plan mode, write tools asking in default
  // mode, `ask_user` denied when not interactive). Without them Gemini's
  // engine asks for every tool in any mode but yolo.
  const policyEngineConfig = await gemini.createPolicyEngineConfig({}, approvalMode, undefined, asks);
  const settings = new gemini.Config({
    sessionId,
    targetDir: root,
    cwd: root,
    debugMode: false,
    model: MODEL,
    interactive: asks,
    acpMode: asks,
    // The ACP agent's default: commands run on pipes, not a pty.
    enableInteractiveShell: false,
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
  // What every Gemini CLI host does with a new Config (gemini.tsx, the ACP
  // agent's newSessionConfig): a "proceed always" the scheduler publishes as
  // UPDATE_POLICY becomes a rule of this session's policy engine.
  gemini.createPolicyUpdater(settings.getPolicyEngine(), settings.getMessageBus(), settings.storage);
  // write_file asks for the client eagerly; it must never be used.
  settings.baseLlmClient = NO_MODEL;
  return settings;
}

/** Ends a session: its calls in flight, running or parked, are cancelled. */
async function closeSession({ sessionId }) {
  const session = sessions.get(sessionId);
  sessions.close(sessionId);
  for (const call of session.inFlight.values()) call.cancel(new Error('session closed'));
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

async function callTool(params, { signal } = {}) {
  const context = callContext(params);
  const session = sessions.get(context.sessionId);
  const call = toGeminiCall(params.name, params.arguments ?? {});
  const request = toolRequest(context, ++session.calls, call.name, call.args);
  refuseInFlight(session.inFlight, request.callId, context.sessionId);
  const onOutput = progressSender(params._meta?.progressToken, (method, note) => output.write(notificationLine(method, note)));
  const schedulerId = `toolpass-${session.id}-${session.calls}`;
  const running = startCall(gemini, session.config, request, { schedulerId, signal, onOutput });
  session.inFlight.set(request.callId, running);
  return drive(session, running, () => running.next());
}

/** `toolpass/confirm`: answers a parked call and returns what it does next. */
async function confirm(params, { signal } = {}) {
  const session = sessions.get(params?.sessionId);
  const call = parkedCall(session.inFlight, params);
  const { outcome, payload } = toGeminiAnswer(params, call.parked);
  // The confirm request now runs the call, so cancelling it cancels the call.
  call.follow(signal);
  return drive(session, call, () => call.answer(outcome, payload));
}

/**
 * Runs `step` of `call` and answers with its Outcome: parked (the call stays
 * in flight for its `toolpass/confirm`) or final. A park toolpass/1 has no
 * form for cancels the call and is an internal error naming its type.
 */
async function drive(session, call, step) {
  const event = await step();
  const forget = () => session.inFlight.delete(call.callId);
  const parked = parkOutcome(event, call, { toConfirmation, forget });
  if (parked) return parked;
  forget();
  if (event.kind === 'failed') throw event.error;
  return toOutcome(event.done);
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
    confirm,
  },
  output,
);
