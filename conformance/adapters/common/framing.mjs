// JSON-RPC 2.0 over stdio, one message per line (toolpass/1 framing):
// requests are answered in order of completion; stdout carries nothing else.
// Each request's handler gets `{requestId, signal}`: the signal aborts when
// the client cancels that request (MCP's `notifications/cancelled`).

import readline from 'node:readline';

export function serve(handle, input = process.stdin, output = process.stdout) {
  const send = (message) => output.write(JSON.stringify(message) + '\n');
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  // Requests not answered yet (queued or running), by id: what MCP's
  // `notifications/cancelled` reaches. It is handled as it arrives, not
  // queued behind the call it cancels.
  const pending = new Map();
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (e) {
      send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `parse error: ${e.message}` } });
      return;
    }
    if (message.id === undefined || message.id === null) {
      if (message.method === 'notifications/cancelled') cancel(pending, message.params);
      return; // any other notification means nothing here
    }
    const controller = new AbortController();
    const params = message.params ?? {};
    pending.set(message.id, { controller, session: sessionOf(params) });
    // A session's close ends its calls rather than waiting behind them, as
    // closing a conversation aborts the turn in flight.
    if (message.method === 'toolpass/session.close') abortSession(pending, params.sessionId, message.id);
    // One call at a time, as a model's turn runs them through one scheduler.
    queue = queue.then(async () => {
      try {
        const context = { requestId: message.id, signal: controller.signal };
        const result = await handle(message.method, params, context);
        send({ jsonrpc: '2.0', id: message.id, result });
      } catch (e) {
        const error = e && typeof e.code === 'number' ? e : { code: -32603, message: String(e?.stack ?? e) };
        send({ jsonrpc: '2.0', id: message.id, error: { code: error.code, message: error.message } });
      } finally {
        pending.delete(message.id);
      }
    });
  });
  return new Promise((resolve) => lines.on('close', () => queue.then(resolve)));
}

/**
 * `notifications/cancelled` {requestId, reason}: aborts that request's
 * signal, whether it runs or still waits its turn (a handler then sees it
 * aborted when it starts). An id already answered, or never sent, is
 * ignored, as MCP says a late or unknown cancellation is.
 */
function cancel(pending, params) {
  const entry = pending.get(params?.requestId);
  if (!entry) return;
  const reason = typeof params.reason === 'string' && params.reason !== '' ? params.reason : 'cancelled by the client';
  entry.controller.abort(new Error(reason));
}

/** The session a request belongs to: `_meta.toolpass.sessionId` of a call, `sessionId` of the rest. */
function sessionOf(params) {
  return params?._meta?.toolpass?.sessionId ?? params?.sessionId;
}

/** Aborts every request of `session` still pending, but the close (`closing`) itself. */
function abortSession(pending, session, closing) {
  if (session === undefined) return;
  for (const [id, entry] of pending) {
    if (id !== closing && entry.session === session) entry.controller.abort(new Error('session closed'));
  }
}

/**
 * A JSON-RPC notification (no id) as one protocol line, for what an adapter
 * sends unasked (`toolpass/notice`) through the writer `serve` replies on.
 */
export function notificationLine(method, params) {
  return JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n';
}

export class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
