// `toolpass-server --mcp` driven by the official TypeScript MCP SDK's
// client, the SDK Qwen Code and Gemini CLI bundle: its zod schemas are what
// those hosts accept (a tool whose schema breaks MCP's Tool shape fails the
// whole tools/list), its handshake, progress and cancellation are theirs.
// Skipped, naming the command, when the SDK or the server is not at hand;
// `just mcp-server-sdk-check` installs the SDK and builds the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSdk, skipReason } from "../../../../scripts/mcp-sdk-check.mjs";

const server = process.env.TOOLPASS_SERVER;
const sdk = await loadSdk(() =>
  Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
  ]),
);
const skip = skipReason(sdk, server, "TOOLPASS_SERVER", "mcp-server-sdk-check");

/** A connected client of `toolpass-server --mcp --root <a fresh directory>`,
 * and a way to end both; every path a test touches is beneath `root`. */
async function connect() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolpass-server-sdk-")));
  const transport = new sdk.StdioClientTransport({
    command: server,
    args: ["--mcp", "--root", root],
    cwd: root,
    stderr: "pipe",
  });
  const client = new sdk.Client({ name: "sdk-check", version: "0" });
  await client.connect(transport);
  const done = async () => {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  };
  return { client, root, done };
}

const text = (result) => result.content.map((c) => c.text).join("\n");

/** A call's result, failing with the tool's own words when it is an error. */
async function ok(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name} failed: ${text(result)}`);
  return result;
}

test("the handshake and tools/list pass the SDK's own schemas", { skip }, async () => {
  const { client, done } = await connect();
  try {
    assert.equal(client.getServerVersion().name, "toolpass-reference");
    // A reveal changes the list, and the client is told.
    assert.equal(client.getServerCapabilities().tools?.listChanged, true);
    assert.equal(client.getServerCapabilities().toolpass, undefined);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ["read_file", "write_file", "edit", "glob", "grep_search", "tool_search"]) {
      assert.ok(names.includes(name), `${name} is not listed: ${names.join(", ")}`);
    }
    const edit = tools.find((t) => t.name === "edit");
    assert.deepEqual(edit.inputSchema.required, ["file_path", "old_string", "new_string"]);
    await client.ping();
  } finally {
    await done();
  }
});

test("write_file, read_file and edit act on a file under the root", { skip }, async () => {
  const { client, root, done } = await connect();
  try {
    const file = join(root, "notes.txt");
    await ok(client, "write_file", { file_path: file, content: "alpha\nbeta\n" });
    assert.equal(readFileSync(file, "utf8"), "alpha\nbeta\n");
    const read = await ok(client, "read_file", { file_path: file });
    assert.match(text(read), /alpha\nbeta/);
    const edited = await ok(client, "edit", { file_path: file, old_string: "beta", new_string: "gamma" });
    assert.equal(edited._meta?.toolpass?.status, "success");
    assert.equal(readFileSync(file, "utf8"), "alpha\ngamma\n");
    // A failed edit is a tool error the model reads, with toolpass's code
    // in `_meta`, and the file is left as it was.
    const missed = await client.callTool({
      name: "edit",
      arguments: { file_path: file, old_string: "delta", new_string: "epsilon" },
    });
    assert.equal(missed.isError, true, text(missed));
    assert.equal(missed._meta?.toolpass?.error?.code, "edit_no_occurrence_found");
    assert.equal(readFileSync(file, "utf8"), "alpha\ngamma\n");
    const outside = await client.callTool({ name: "read_file", arguments: { file_path: "/etc/passwd" } });
    assert.equal(outside.isError, true, text(outside));
    assert.equal(outside._meta?.toolpass?.error?.code, "path_not_in_workspace");
  } finally {
    await done();
  }
});

test("a cancelled call ends its command and the next call runs", { skip }, async (t) => {
  const { client, root, done } = await connect();
  try {
    const { tools } = await client.listTools();
    if (!tools.some((tool) => tool.name === "run_shell_command")) {
      t.skip("run_shell_command is not listed in MCP mode: no long call to cancel");
      return;
    }
    const pidFile = join(root, "shell.pid");
    const abort = new AbortController();
    const progress = [];
    let started;
    const seen = new Promise((resolve) => (started = resolve));
    const call = client.callTool(
      { name: "run_shell_command", arguments: { command: `echo $$ > ${pidFile}; echo started; sleep 60` } },
      undefined,
      {
        signal: abort.signal,
        timeout: 120_000,
        onprogress: (p) => {
          progress.push(p.message);
          started();
        },
      },
    );
    const first = await Promise.race([seen.then(() => "progress"), call.then(() => "answered")]);
    assert.equal(first, "progress", "the 60-second command answered before any progress");
    assert.match(progress[0], /started/);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    const cancelledAt = Date.now();
    abort.abort("the user pressed Esc");
    await assert.rejects(call);
    // The queue moves on only once the command has stopped.
    writeFileSync(join(root, "after.txt"), "after\n");
    const after = await ok(client, "read_file", { file_path: join(root, "after.txt") });
    assert.match(text(after), /after/);
    assert.ok(Date.now() - cancelledAt < 30_000, "the next call waited for the command to run out");
    assert.throws(() => process.kill(pid, 0), { code: "ESRCH" }, `the command's shell ${pid} still runs`);
  } finally {
    await done();
  }
});
