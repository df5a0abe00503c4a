// toolpass-mcp-fixture driven by the official TypeScript MCP SDK's client,
// the SDK Qwen Code and Gemini CLI bundle: its zod schemas are what those
// peers accept, so a shape the fixture offers that they would refuse (a
// `required` that is not an array fails a whole tools/list) fails here
// first, and its dispatch order is theirs (progress read in the same chunk
// as the answer would be dropped; the fixture pings before answering).
// Skipped, naming the command, when the SDK or the fixture is not at hand;
// `just mcp-fixture-sdk-check` installs the SDK and builds the fixture.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSdk, skipReason } from "../../../../scripts/mcp-sdk-check.mjs";

const fixture = process.env.TOOLPASS_MCP_FIXTURE;
const sdk = await loadSdk(() =>
  Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
  ]),
);
const skip = skipReason(sdk, fixture, "TOOLPASS_MCP_FIXTURE", "mcp-fixture-sdk-check");

/** A private directory with notes/ (the fixture's --dir) inside it: the
 * fixture runs there and every path a test touches is beneath it. */
function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), "toolpass-mcp-fixture-sdk-"));
  mkdirSync(join(dir, "notes"));
  return dir;
}

/** A connected client and a way to end it and its directory. */
async function connect(extra = []) {
  const dir = sandbox();
  const transport = new sdk.StdioClientTransport({
    command: fixture,
    args: ["--dir", "notes", ...extra],
    cwd: dir,
    stderr: "pipe",
  });
  const client = new sdk.Client({ name: "sdk-check", version: "0" });
  const done = async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { client, transport, dir, done };
}

const text = (result) => result.content.map((c) => c.text).join("");

test("every listing passes the SDK's own schemas", { skip }, async () => {
  const { client, transport, done } = await connect();
  try {
    await client.connect(transport);
    assert.equal(client.getServerVersion().name, "toolpass-mcp-fixture");
    const { tools } = await client.listTools();
    assert.equal(tools.length, 9);
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
    assert.equal(hints.read_note, true);
    assert.equal(hints.write_note, false);
    assert.equal(hints.list_notes, undefined);
    assert.ok(tools.some((t) => `mcp__x__${t.name}`.length > 63));
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => r.uri),
      ["fixture://text/welcome.txt", "fixture://blob/all-bytes.bin"],
    );
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ["review_note", "daily_summary"]);
  } finally {
    await done();
  }
});

test("notes, resources and prompts answer as the Rust client sees them", { skip }, async () => {
  const { client, transport, dir, done } = await connect();
  try {
    await client.connect(transport);
    const wrote = await client.callTool({ name: "write_note", arguments: { name: "a.txt", content: "ay" } });
    assert.equal(text(wrote), "wrote 2 bytes to a.txt");
    assert.equal(readFileSync(join(dir, "notes", "a.txt"), "utf8"), "ay");
    const read = await client.callTool({ name: "read_note", arguments: { name: "a.txt" } });
    assert.equal(text(read), "ay");
    const escaped = await client.callTool({ name: "read_note", arguments: { name: "../x" } });
    assert.equal(escaped.isError, true);
    const blob = await client.readResource({ uri: "fixture://blob/all-bytes.bin" });
    const bytes = Buffer.from(blob.contents[0].blob, "base64");
    assert.deepEqual([...bytes], Array.from({ length: 256 }, (_, i) => i));
    const prompt = await client.getPrompt({ name: "review_note", arguments: { name: "a.txt" } });
    assert.equal(prompt.messages[0].content.text, 'Review the note "a.txt".');
    const large = await client.callTool({ name: "large_output", arguments: {} });
    assert.equal(text(large).length, 600000);
  } finally {
    await done();
  }
});

test("progress arrives through onprogress before the result", { skip }, async () => {
  const { client, transport, done } = await connect();
  try {
    await client.connect(transport);
    const seen = [];
    const result = await client.callTool(
      { name: "report_progress", arguments: { steps: 3 } },
      undefined,
      { onprogress: (p) => seen.push([p.progress, p.total, p.message]) },
    );
    assert.equal(text(result), "completed 3 steps");
    assert.deepEqual(seen, [
      [1, 3, "step 1 of 3"],
      [2, 3, "step 2 of 3"],
      [3, 3, "step 3 of 3"],
    ]);
  } finally {
    await done();
  }
});

test("a crash rejects the call; a call that never answers times out", { skip }, async () => {
  const { client, transport, done } = await connect();
  try {
    await client.connect(transport);
    await assert.rejects(
      client.callTool({ name: "never_answer", arguments: {} }, undefined, { timeout: 300 }),
      /timed out/i,
    );
    await assert.rejects(client.callTool({ name: "crash_server", arguments: {} }), /closed/i);
  } finally {
    await done();
  }
});

test("neither broken shape completes the handshake", { skip }, async () => {
  for (const shape of ["--never-initialize", "--invalid-json"]) {
    const { client, transport, done } = await connect([shape]);
    try {
      await assert.rejects(client.connect(transport, { timeout: 300 }), /timed out/i, shape);
    } finally {
      await done();
    }
  }
});
