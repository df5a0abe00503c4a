// toolpass/1 adapter for Qwen Code's published tool layer
// (`@qwen-code/qwen-code`, pinned in package.json), driven in process: one
// `Config` per session, every call through `executeToolCall`, the wrapper
// around Qwen's real CoreToolScheduler, with the callbacks a host uses to
// see a call park at a confirmation and answer it; a `toolpass/batch` is
// one turn's calls on one CoreToolScheduler (lib/batch.mjs). Nothing of
// Qwen's is modified.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { notificationLine } from '../common/framing.mjs';
import { callContext, claimStdout, RpcError, runAdapter, Sessions, sessionRoot, toolRequest } from '../common/server.mjs';
import { batchCalls, callOutcome, QwenBatch } from './lib/batch.mjs';
import { startCall } from './lib/calls.mjs';
import { classifierInput } from './lib/classifier.mjs';
import { indexExports, load } from './lib/chunks.mjs';
import { toConfirmation, toQwenAnswer } from './lib/confirmation.mjs';
import { Faults } from './lib/faults.mjs';
import { adapterFeatures } from './lib/features.mjs';
import { deferredListing } from './lib/deferred.mjs';
import { parkedCall, parkOutcome, refuseInFlight } from '../common/calls.mjs';
import { toDescriptor, toOutcome } from './lib/outcome.mjs';
import { pinnedRipgrep } from './lib/ripgrep.mjs';
import { qwenSessionParams } from './lib/session-config.mjs';
import { progressSender } from '../common/updates.mjs';

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
const qwen = await load(indexExports(path.join(pkg, 'chunks')), [
  'Config',
  'CoreToolScheduler',
  'executeToolCall',
  'loadPty',
  'shouldDefaultToNodePty',
  'buildDeferredToolsReminder',
]);

// Whether Qwen's shell runs foreground commands on a pty here: Qwen's own
// `loadPty()` (imported from inside its bundle, so it resolves node-pty as
// Qwen does) and the default every session's Config takes.
const pty = await qwen.loadPty();
if (pty.impl === null) {
  process.stderr.write(`qwen-code adapter: Qwen's loadPty found no node-pty (${pty.loadError}); its shell runs on pipes\n`);
}
const FEATURES = adapterFeatures({ ptyLoaded: pty.impl !== null, ptyChosen: qwen.shouldDefaultToNodePty() });

const sessions = new Sessions('qwen');

async function openSession(params) {
  const root = sessionRoot(params);
  // The session config's keys are Qwen's own settings (lib/session-config.mjs).
  const passed = qwenSessionParams(params.config, root);
  const current = {
    config: undefined,
    calls: 0,
    resultFilePaths: undefined,
    // The same per invocation, for calls of a batch, which run at once.
    resultFiles: new WeakMap(),
    inFlight: new Map(),
    driving: undefined,
    faults: new Faults(),
  };
  const sessionId = await sessions.open(current, async (id) => {
    current.config = await newConfig(id, root, passed);
  });
  wrapExecutions(current.config.getToolRegistry(), current);
  forwardShellNotices(sessionId, current);
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
    // A host that answers confirmations, as Qwen's ACP agent is (`qwen
    // --acp` sets this): the scheduler parks a call that needs approval
    // rather than denying it. Unlike `interactive`, it leaves results
    // uncompacted (the interactive UI trims FileDiff contents for its
    // history) and the shell without the UI's timeout warning; it also
    // registers the tools that need a user: ask_user_question,
    // enter_plan_mode, exit_plan_mode.
    interactive: false,
    experimentalZedIntegration: true,
    chatRecording: false,
    telemetry: { enabled: false },
    usageStatisticsEnabled: false,
    enableManagedAutoMemory: false,
    enableManagedAutoDream: false,
    cronEnabled: false,
    // Qwen's collaboration tools, behind settings its CLI leaves off by
    // default (`tools.todoWrite.enabled`, `experimental.agentTeam`):
    // todo_write, and task_create among the agent-team tools. No team is
    // ever created, so task_create answers as Qwen does without one.
    todoWriteEnabled: true,
    agentTeamEnabled: true,
    // Pinned (lib/ripgrep.mjs): grep_search is Qwen's RipGrepTool on its
    // bundled rg, checked to run above, whatever the machine's PATH holds.
    useRipgrep: true,
    useBuiltinRipgrep: true,
    ...passed,
  });
  // MCP discovery runs only for a session with servers: Qwen starts it in
  // the background at initialize, and its non-interactive hosts (ACP,
  // stream-json) wait for it before the first turn, as the adapter does
  // before answering session.open.
  const withMcp = passed.mcpServers !== undefined;
  await settings.initialize({ skipHooks: true, skipMcpDiscovery: !withMcp, skipFileCheckpointing: true });
  if (withMcp) await settings.waitForMcpReady();
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
 * Each tool's `build` is wrapped so that its invocation's `execute`, which
 * Qwen's scheduler calls as the call starts, first meets the session's
 * `call.rendezvous` when it is armed (lib/faults.mjs), and afterwards
 * notes `resultFilePaths`, part of Qwen's ToolResult but not of what the
 * scheduler reports. Unarmed, the wrappers pass every argument and result
 * through untouched: Qwen behaves exactly as unwrapped.
 */
function wrapExecutions(registry, current) {
  for (const tool of registry.getAllTools()) {
    const build = tool.build.bind(tool);
    tool.build = (...args) => {
      const invocation = build(...args);
      const execute = invocation.execute.bind(invocation);
      invocation.execute = async (...rest) => {
        const missed = await current.faults.meet();
        // A tool's own failure, as a ToolResult carries it.
        if (missed) return { llmContent: missed, returnDisplay: missed, error: { message: missed, type: 'execution_failed' } };
        const result = await execute(...rest);
        current.resultFilePaths = result?.resultFilePaths;
        if (result?.resultFilePaths) current.resultFiles.set(invocation, result.resultFilePaths);
        return result;
      };
      return invocation;
    };
  }
}

/**
 * What the model is shown: Qwen's declarations (a hidden deferred tool is
 * not among them), and under `_meta.toolpass` the deferred tools it is told
 * of by name instead and the reminder that tells it (lib/deferred.mjs).
 */
function listTools({ sessionId }) {
  const registry = sessions.get(sessionId).config.getToolRegistry();
  const byName = new Map(registry.getAllTools().map((t) => [t.name, t]));
  const tools = registry.getFunctionDeclarations().map((d) => toDescriptor(d, byName.get(d.name)));
  return { tools, ...deferredListing(registry, qwen.buildDeferredToolsReminder) };
}

/**
 * Sends the model's text of a finished background shell as a
 * `toolpass/notice`, naming the call that started it. A shell registers
 * while its call runs, and calls run one at a time, so the call being
 * driven is the one that started it.
 */
function forwardShellNotices(sessionId, current) {
  const registry = current.config.getBackgroundShellRegistry();
  const startedBy = new Map();
  registry.setRegisterCallback((entry) => {
    if (current.driving) startedBy.set(entry.shellId, current.driving);
  });
  registry.setNotificationCallback((_displayText, modelText, meta) => {
    const callId = startedBy.get(meta?.shellId);
    const params = { sessionId, kind: 'background_shell', text: modelText, ...(callId ? { callId } : {}) };
    output.write(notificationLine('toolpass/notice', params));
  });
}

async function callTool(params, { signal } = {}) {
  const { name, arguments: args = {} } = params;
  const context = callContext(params);
  const current = sessions.get(context.sessionId);
  current.calls += 1;
  const request = toolRequest(context, current.calls, name, args);
  refuseInFlight(current.inFlight, request.callId, context.sessionId);
  const onOutput = progressSender(params._meta?.progressToken, (method, note) => output.write(notificationLine(method, note)));
  await current.faults.beforeCall(current.config.getToolRegistry(), name, args);
  const call = startCall(qwen.executeToolCall, current.config, request, { signal, onOutput });
  // Asked only if the call parks; the tool's projection is pure on its arguments.
  call.classifierInput = () => classifierInput(current.config.getToolRegistry(), name, args);
  current.inFlight.set(request.callId, call);
  return drive(current, call, () => call.next());
}

/**
 * `toolpass/batch`: the calls on one CoreToolScheduler (lib/batch.mjs).
 * The batch's signal is the request's; every call stays in flight, under
 * its id, until Qwen has completed the batch.
 */
async function batch(params, { signal } = {}) {
  const current = sessions.get(params?.sessionId);
  const calls = batchCalls(params, current.inFlight);
  current.calls += 1;
  const requests = calls.map(({ callId, name, arguments: args = {} }) =>
    toolRequest({ sessionId: params.sessionId, callId }, current.calls, name, args),
  );
  // mcp.disconnect: before the calls are handed to Qwen, in their order.
  for (const { name, args } of requests) await current.faults.beforeCall(current.config.getToolRegistry(), name, args);
  const running = new QwenBatch(qwen.CoreToolScheduler, current.config, requests);
  running.follow(signal);
  for (const { callId } of requests) current.inFlight.set(callId, batchMember(running, callId));
  return {
    results: await settleBatch(current, running, () => running.start()),
    ...(running.account ? { budget: running.account } : {}),
  };
}

/** A batch's call as the session's in-flight table holds it. */
function batchMember(running, callId) {
  return {
    batch: running,
    callId,
    get parked() {
      return running.parked(callId);
    },
    cancel: (reason) => running.cancel(reason),
    follow: (signal) => running.follow(signal),
  };
}

/**
 * Runs `step` of a batch and answers with every call's Outcome; a batch
 * Qwen completed leaves the in-flight table.
 */
async function settleBatch(current, running, step) {
  const settled = await step();
  if (settled.kind === 'failed') {
    forgetBatch(current, running);
    throw settled.error;
  }
  const registry = current.config.getToolRegistry();
  const observed = {
    resultFilePaths: (call) => (call.invocation ? current.resultFiles.get(call.invocation) : undefined),
    classifierInput: (request) =>
      classifierInput(registry, request.modelFacingName ?? request.name, request.modelFacingArgs ?? request.args),
  };
  const results = running.requests.map(({ callId }) => callOutcome(running, settled, callId, observed));
  const unknown = results.find((r) => r instanceof Error);
  if (unknown) {
    running.cancel(unknown);
    forgetBatch(current, running);
    throw new RpcError(-32603, unknown.message);
  }
  if (settled.kind === 'done') forgetBatch(current, running);
  return results;
}

function forgetBatch(current, running) {
  for (const { callId } of running.requests) {
    if (current.inFlight.get(callId)?.batch === running) current.inFlight.delete(callId);
  }
}

/** `toolpass/confirm`: answers a parked call and returns what it does next. */
async function confirm(params, { signal } = {}) {
  const current = sessions.get(params?.sessionId);
  const call = parkedCall(current.inFlight, params);
  const [outcome, payload] = toQwenAnswer(params, call.parked);
  if (call.batch) {
    // The confirm request now drives the batch: cancelling it cancels the
    // batch, whose one signal Qwen's scheduler holds.
    call.follow(signal);
    const index = call.batch.requests.findIndex((r) => r.callId === call.callId);
    const results = await settleBatch(current, call.batch, () => call.batch.answer(call.callId, outcome, payload));
    return results[index];
  }
  // The confirm request now runs the call, so cancelling it cancels the call.
  call.follow(signal);
  return drive(current, call, () => call.answer(outcome, payload));
}

/** `toolpass/fault`: arms a point of the session (lib/faults.mjs). */
function fault(params) {
  sessions.get(params?.sessionId).faults.arm(params);
}

/** Runs `step` of `call` and answers with its Outcome: parked or final. */
async function drive(current, call, step) {
  current.driving = call.callId;
  current.resultFilePaths = undefined;
  let event;
  try {
    event = await step();
  } finally {
    current.driving = undefined;
  }
  const forget = () => current.inFlight.delete(call.callId);
  const parked = parkOutcome(event, call, { toConfirmation, forget, classifierInput: () => call.classifierInput?.() });
  if (parked) return parked;
  forget();
  if (event.kind === 'failed') throw event.error;
  return toOutcome(event.response, { status: event.status, resultFilePaths: current.resultFilePaths });
}

/**
 * Ends a session: its calls in flight are aborted (a parked one is
 * cancelled), and Qwen's own shutdown stops its background shells
 * (`BackgroundShellRegistry.abortAll`, which kills each process group and
 * sends no notice).
 */
async function closeSession({ sessionId }) {
  const current = sessions.get(sessionId);
  sessions.close(sessionId);
  cancelAll(current, 'session closed');
  await current.config.shutdown();
}

function cancelAll(current, reason) {
  for (const call of current.inFlight.values()) call.cancel(new Error(reason));
}

// The runner closes stdin to end the adapter: calls still running are
// aborted so the last reply goes out and the process exits, and Qwen's exit
// hook (ShellExecutionService.cleanup) kills what its shells left running.
process.stdin.once('end', () => {
  for (const current of sessions.byId.values()) cancelAll(current, 'adapter stopping');
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.once(signal, () => process.exit(1));

await runAdapter(
  {
    name: 'qwen-code',
    version,
    description: `grep_search: Qwen's RipGrepTool on its bundled ripgrep ${ripgrep.version}`,
    features: FEATURES,
    openSession,
    closeSession,
    listTools,
    callTool,
    confirm,
    batch,
    fault,
  },
  output,
);
