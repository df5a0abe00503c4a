// The toolpass/1 server every Node adapter runs: initialize, sessions,
// tools/list and tools/call dispatched to the adapter's own functions.
// stdout carries protocol lines only, so console output goes to stderr
// (peers log from deep inside their tools).

import path from 'node:path';

import { RpcError, serve } from './framing.mjs';
import { pickConfig, toolNotRegistered } from './outcome.mjs';

export { RpcError };

/** Sends console.* to stderr; returns a writer for protocol lines. */
export function claimStdout() {
  const protocolOut = process.stdout.write.bind(process.stdout);
  const toStderr = (...args) => process.stderr.write(args.join(' ') + '\n');
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  return { write: protocolOut };
}

/**
 * A session table: `open(id, params)` builds the peer's per-session state;
 * an unknown id is -32010, as toolpass/1 says.
 */
export class Sessions {
  constructor(prefix) {
    this.prefix = prefix;
    this.byId = new Map();
    this.next = 0;
  }

  add(state) {
    const id = `${this.prefix}-${++this.next}`;
    this.byId.set(id, state);
    return id;
  }

  /** Adds `state` and runs `init(id)`; if that fails the session is removed again. */
  async open(state, init) {
    const id = this.add(state);
    try {
      await init(id);
    } catch (e) {
      this.close(id);
      throw e;
    }
    return id;
  }

  get(id) {
    const found = this.byId.get(id);
    if (!found) throw new RpcError(-32010, `unknown session ${id}`);
    return found;
  }

  close(id) {
    this.byId.delete(id);
  }
}

/** The sandbox root of a `toolpass/session.open`, which must be absolute. */
export function sessionRoot(params) {
  const root = params?.root;
  if (typeof root !== 'string' || !path.isAbsolute(root)) {
    throw new RpcError(-32602, 'root must be an absolute path');
  }
  return root;
}

/**
 * A tools/call as the Gemini CLI family's schedulers take it: the call id
 * from the context (or a counter), one prompt id per call.
 */
export function toolRequest(context, count, name, args) {
  return {
    callId: context.callId ?? `call-${count}`,
    name,
    args,
    isClientInitiated: false,
    prompt_id: `${context.sessionId}-${count}`,
  };
}

/**
 * `toolpass/session.open` for a peer whose only per-session state is its
 * root: config keys outside `accepted` are refused (pickConfig).
 * Returns {sessionId}; the session's state is {root, config}.
 */
export function openRootSession(sessions, params = {}, accepted = [], peer = 'its peer') {
  const root = sessionRoot(params);
  const config = pickConfig(params.config, accepted, peer);
  return { sessionId: sessions.add({ root, config }) };
}

/** The `_meta.toolpass` call context, required on every tools/call. */
export function callContext(params) {
  const context = params?._meta?.toolpass;
  if (!context) throw new RpcError(-32602, 'tools/call needs _meta.toolpass {sessionId, callId}');
  return context;
}

/**
 * Serves toolpass/1 until stdin closes, then exits.
 * `adapter`: {name, version, description?, features, openSession(params) -> {sessionId},
 * closeSession(params), listTools(params) -> {tools}, callTool(params, request) -> Outcome,
 * with the `confirm` feature confirm(params, request) -> Outcome, with the
 * `batch` feature batch(params, request) -> {results, budget?}, and with a
 * `fault:<point>` feature fault(params), answered `{}`}; `request` is
 * {requestId, signal}, the signal aborted by the client's `notifications/cancelled`.
 */
export async function runAdapter(adapter, output = claimStdout()) {
  const methods = {
    initialize: () => ({
      protocolVersion: 'toolpass/1',
      serverInfo: {
        name: adapter.name,
        version: adapter.version,
        // MCP's `description`: which configuration of the peer runs (the
        // runner prints it in the run's header and keeps it in the JSONL).
        ...(adapter.description ? { description: adapter.description } : {}),
      },
      capabilities: { tools: {}, toolpass: { version: 1, features: adapter.features } },
    }),
    'toolpass/session.open': (p) => adapter.openSession(p),
    'toolpass/session.close': async (p) => {
      await adapter.closeSession(p);
      return {};
    },
    'tools/list': (p) => adapter.listTools(p),
    // The request's `{requestId, signal}` (framing.mjs): an adapter with
    // the `cancel` feature stops the call when the signal aborts.
    'tools/call': (p, request) => adapter.callTool(p, request),
    ...(adapter.confirm ? { 'toolpass/confirm': (p, request) => adapter.confirm(p, request) } : {}),
    ...(adapter.batch ? { 'toolpass/batch': (p, request) => adapter.batch(p, request) } : {}),
    ...(adapter.fault ? { 'toolpass/fault': async (p) => (await adapter.fault(p), {}) } : {}),
  };
  await serve(
    async (method, params, request) => {
      const handler = methods[method];
      if (!handler) throw new RpcError(-32601, `method not found: ${method}`);
      return handler(params, request);
    },
    process.stdin,
    output,
  );
  process.exit(0);
}

/**
 * Serves an adapter whose peer keeps no state of its own between calls: a
 * session is its root, `tools` (MCP descriptors) is the whole tool list,
 * a call to any other name is `tool_not_registered`, and
 * `call(name, args, root)` answers the rest with an Outcome.
 */
export function runRootAdapter({ name, version, features, tools, call }, output = claimStdout()) {
  const sessions = new Sessions(name);
  const offered = tools.map((t) => t.name);
  return runAdapter(
    {
      name,
      version,
      features,
      openSession: (params) => openRootSession(sessions, params, [], name),
      closeSession: ({ sessionId }) => sessions.close(sessionId),
      listTools: ({ sessionId }) => {
        sessions.get(sessionId);
        return { tools };
      },
      callTool: async (params) => {
        const { root } = sessions.get(callContext(params).sessionId);
        if (!offered.includes(params.name)) return toolNotRegistered(params.name, offered);
        return call(params.name, params.arguments ?? {}, root);
      },
    },
    output,
  );
}
