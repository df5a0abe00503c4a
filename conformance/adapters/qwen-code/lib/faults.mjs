// The fault point Qwen has a real seam for: `mcp.disconnect`, an MCP
// server's connection dropping. Nothing of Qwen's is changed: before the
// call is handed to Qwen's scheduler, the stdio transport of the server the
// call goes to is closed (the SDK's `StdioClientTransport.close()` ends the
// server process), as when the server exits on its own; what Qwen does
// about it (its McpClient's onclose, `handleReconnectOnError`, replay or
// not) is its own. Tested with a fake registry, without the bundle.

import { RpcError } from '../../common/framing.mjs';

/** The points this adapter can honour. */
export const FAULT_POINTS = ['mcp.disconnect'];

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
  constructor() {
    this.disconnect = [];
  }

  /** Arms `{point, times, skip}`; a point Qwen has no seam for is -32601. */
  arm({ point, times = 1, skip = 0 }) {
    if (!FAULT_POINTS.includes(point)) {
      throw new RpcError(-32601, `fault point ${JSON.stringify(point)} is not supported: Qwen has no seam for it`);
    }
    for (const [key, value] of Object.entries({ times, skip })) {
      if (!Number.isInteger(value) || value < 0) throw new RpcError(-32602, `fault ${key} must be a whole number, not ${JSON.stringify(value)}`);
    }
    for (let i = 0; i < skip; i++) this.disconnect.push(false);
    for (let i = 0; i < times; i++) this.disconnect.push(true);
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
