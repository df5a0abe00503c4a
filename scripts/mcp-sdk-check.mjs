// What the sdk-check tests share (scripts/mcp-sdk-check runs them): the
// TypeScript MCP SDK's client, which the caller imports itself (an import
// resolves from the importing file's own node_modules, each check's
// pinned copy), and the reason a test is skipped.
import { existsSync } from "node:fs";

/** The SDK's Client and StdioClientTransport, or undefined when `load`
 * (the caller's imports of the SDK's client and stdio modules) fails: the
 * SDK is not installed. */
export async function loadSdk(load) {
  try {
    const [{ Client }, { StdioClientTransport }] = await load();
    return { Client, StdioClientTransport };
  } catch {
    return undefined;
  }
}

/** Why the tests skip, naming the `just` recipe that installs the SDK and
 * builds the binary `variable` names; false when they can run. */
export function skipReason(sdk, binary, variable, recipe) {
  if (!sdk) {
    return `the SDK is not installed: run \`just ${recipe}\``;
  }
  if (!binary || !existsSync(binary)) {
    return `${variable} names no built binary: run \`just ${recipe}\``;
  }
  return false;
}
