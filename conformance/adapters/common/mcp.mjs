// A session's `mcpServers` (toolpass/1) as the `mcpServers` settings of the
// Gemini CLI family (Qwen Code's and Gemini CLI's `MCPServerConfig`: the
// same member names, the same meaning). Pure, so it is tested without a peer.

import path from 'node:path';

import { RpcError } from './framing.mjs';

/** The members of a toolpass MCP server entry, each kept under its own name. */
const MEMBERS = ['command', 'args', 'env', 'cwd', 'timeout', 'trust', 'includeTools', 'excludeTools'];

/**
 * `servers` (name -> toolpass McpServerConfig) -> name -> the peer's
 * settings entry. The one change is `cwd`: toolpass resolves it against the
 * session root (the root when absent), the peers against their process's
 * working directory, which for their CLI is the workspace; one adapter
 * process serves many roots, so the entry gets the absolute directory.
 * A member toolpass/1 does not define is refused, naming the server.
 */
export function mcpServerSettings(servers, root) {
  if (servers === undefined) return undefined;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new RpcError(-32602, 'mcpServers must be an object of server name -> {command, ...}');
  }
  const out = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (entry === null || typeof entry !== 'object' || typeof entry.command !== 'string') {
      throw new RpcError(-32602, `mcpServers.${name} needs a command (a string)`);
    }
    const unknown = Object.keys(entry).filter((k) => !MEMBERS.includes(k));
    if (unknown.length > 0) {
      throw new RpcError(-32602, `mcpServers.${name} has members toolpass/1 does not define: ${unknown.join(', ')}`);
    }
    const settings = Object.fromEntries(MEMBERS.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]));
    settings.cwd = path.resolve(root, entry.cwd ?? '.');
    out[name] = settings;
  }
  return out;
}
