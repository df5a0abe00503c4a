// JSON-RPC 2.0 over stdio, one message per line (toolpass/1 framing):
// requests are answered in order of completion; stdout carries nothing else.

import readline from 'node:readline';

export function serve(handle, input = process.stdin, output = process.stdout) {
  const send = (message) => output.write(JSON.stringify(message) + '\n');
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
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
    if (message.id === undefined || message.id === null) return; // a notification
    // One call at a time, as a model's turn runs them through one scheduler.
    queue = queue.then(async () => {
      try {
        const result = await handle(message.method, message.params ?? {});
        send({ jsonrpc: '2.0', id: message.id, result });
      } catch (e) {
        const error = e && typeof e.code === 'number' ? e : { code: -32603, message: String(e?.stack ?? e) };
        send({ jsonrpc: '2.0', id: message.id, error: { code: error.code, message: error.message } });
      }
    });
  });
  return new Promise((resolve) => lines.on('close', () => queue.then(resolve)));
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
