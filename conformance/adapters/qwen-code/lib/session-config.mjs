// A session's toolpass/1 config -> the Qwen `Config` params it maps onto.
// Pure, so it is tested without the bundle.

import { RpcError } from '../../common/framing.mjs';
import { mcpServerSettings } from '../../common/mcp.mjs';
import { pickConfig } from '../../common/outcome.mjs';

/** Session config keys that are Qwen Config params of the same name and meaning. */
const PASSED_THROUGH = [
  'truncateToolOutputThreshold',
  'truncateToolOutputLines',
  'toolOutputBatchBudget',
  'approvalMode',
  'disabledTools',
];

/** Every key this adapter maps; any other is refused (pickConfig). */
const MAPPED = [...PASSED_THROUGH, 'deferredTools', 'mcpServers'];

/**
 * The Qwen Config params for `config` on `root`:
 * - the passed-through keys as they are;
 * - `deferredTools`: Qwen 0.24.4 has one model, the proxy (its
 *   `ToolSearchTool` only returns schemas, "without changing the active
 *   tool list", and `tool_call` runs the hidden tool), so `proxy` maps onto
 *   nothing and `reveal` is refused rather than run as the proxy;
 * - `mcpServers` as Qwen's `mcpServers` settings (common/mcp.mjs).
 */
export function qwenSessionParams(config, root) {
  const picked = pickConfig(config, MAPPED, 'Qwen');
  const { deferredTools, mcpServers, ...params } = picked;
  if (deferredTools !== undefined && deferredTools !== 'proxy') {
    throw new RpcError(
      -32602,
      `deferredTools: Qwen 0.24.4 has only the proxy model (its tool_search does not reveal), not ${JSON.stringify(deferredTools)}`,
    );
  }
  const servers = mcpServerSettings(mcpServers, root);
  if (servers !== undefined && Object.keys(servers).length > 0) params.mcpServers = servers;
  return params;
}
