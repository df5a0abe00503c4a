// The fault points this adapter can honour without changing Qwen:
// - `mcp.disconnect`, an MCP server's connection dropping: before the call
//   is handed to Qwen's scheduler, the stdio transport of the server the
//   call goes to is closed (the SDK's `StdioClientTransport.close()` ends
//   the server process), as when the server exits on its own; what Qwen
//   does about it (its McpClient's onclose, `handleReconnectOnError`,
//   replay or not) is its own.
// - `call.rendezvous`, a testing aid: the next N calls to start executing
//   wait for each other before their tool runs (the adapter's wrapper of
//   each invocation's `execute`, which Qwen's scheduler calls when the call
//   starts), so only calls Qwen runs at once can meet. A call that waits in
//   vain returns a tool result failing with Qwen's `execution_failed`.
// Tested with a fake registry, without the bundle.

import { RpcError } from '../../common/framing.mjs';

/** The points this adapter can honour. */
export const FAULT_POINTS = ['mcp.disconnect', 'call.rendezvous'];

/** How long a call waits at `call.rendezvous` for the others, as SPEC says. */
export const RENDEZVOUS_WAIT_MS = 10_000;

/** The MCP tool a call reaches: by its name, or `tool_call`'s target (any case). */
export function mcpTarget(registry, name, args) {
  let targetName = name;
  if (name === 'tool_call' && typeof args?.name === 'string') {
    const lower = args.name.trim().toLowerCase();
    targetName = registry.getAllToolNames().find((n) => n.toLowerCase() === lower) ?? args.name;
  }
  const tool = registry.getTool(targetName);
  return typeof tool?.serverName === 'string' ? tool : undefined;
}

/** `toolpass/fault`s armed in one session. */
export class Faults {
  constructor(waitMs = RENDEZVOUS_WAIT_MS) {
    this.disconnect = [];
    this.waitMs = waitMs;
    /** `call.rendezvous`: calls to let by, to meet, met so far, and the meeting. */
    this.rendezvous = undefined;
  }

  /** Arms `{point, times, skip}`; a point Qwen has no seam for is -32601. */
  arm({ point, times = 1, skip = 0 }) {
    if (!FAULT_POINTS.includes(point)) {
      throw new RpcError(-32601, `fault point ${JSON.stringify(point)} is not supported: Qwen has no seam for it`);
    }
    for (const [key, value] of Object.entries({ times, skip })) {
      if (!Number.isInteger(value) || value < 0) throw new RpcError(-32602, `fault ${key} must be a whole number, not ${JSON.stringify(value)}`);
    }
    if (point === 'call.rendezvous') {
      // Re-arming replaces the arming, as the reference's does.
      let met;
      const meeting = new Promise((resolve) => (met = resolve));
      this.rendezvous = { skip, left: times, size: times, arrived: 0, meeting, met };
      return;
    }
    for (let i = 0; i < skip; i++) this.disconnect.push(false);
    for (let i = 0; i < times; i++) this.disconnect.push(true);
  }

  /**
   * As a call starts executing: when it is one of the calls armed to meet,
   * waits until all of them have started, or `waitMs`. Resolves with
   * undefined to run the call, or with the message it fails with.
   */
  async meet() {
    const r = this.rendezvous;
    if (!r) return undefined;
    if (r.skip > 0) {
      r.skip -= 1;
      return undefined;
    }
    if (r.left === 0) return undefined;
    r.left -= 1;
    r.arrived += 1;
    if (r.arrived >= r.size) r.met();
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(() => resolve(true), this.waitMs)));
    const missed = await Promise.race([r.meeting.then(() => false), late]);
    clearTimeout(timer);
    if (!missed) return undefined;
    return `call.rendezvous: ${r.arrived} of ${r.size} calls had started after ${this.waitMs / 1000} s; the calls armed to meet did not run at once`;
  }

  /**
   * Before a call: when it reaches an MCP tool, the next armed operation of
   * `mcp.disconnect` is used up, and if it is a failure that server's
   * transport is closed. Resolves once it is closed.
   */
  async beforeCall(registry, name, args) {
    if (this.disconnect.length === 0) return;
    const tool = mcpTarget(registry, name, args);
    if (!tool) return;
    if (!this.disconnect.shift()) return;
    const client = registry.getMcpClientManager?.()?.clients?.get(tool.serverName);
    await client?.transport?.close();
  }
}
