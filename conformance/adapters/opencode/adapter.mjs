// toolpass/1 adapter for opencode's published tools (`opencode-ai`, pinned
// in package.json). opencode is one compiled binary with no importable
// API; its `debug agent build --tool <id> --params <json>` runs one tool
// of the build agent without a model. Each tools/call is one such process
// in the session root, so nothing carries over from one call to the next.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { codexVendor, runSandboxed } from '../common/peers.mjs';
import { claimStdout, runRootAdapter } from '../common/server.mjs';
import { opencodeBinary } from './lib/binary.mjs';
import { TOOLS, toOpencode, toOutcome } from './lib/mapping.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const output = claimStdout();

const opencode = opencodeBinary(here);
// opencode's grep and glob run `rg` from PATH (else it downloads one, which
// this adapter never lets it do): the pinned @openai/codex ships one.
const codex = codexVendor(here);
if (!opencode || !codex) {
  process.stderr.write(
    `opencode adapter: opencode-ai's platform binary or @openai/codex's rg is not installed under ${here}/node_modules; ` +
      'run `just adapter-setup opencode`\n',
  );
  process.exit(3);
}

/**
 * Sessions only. No prior_read: every call is a fresh opencode process, so
 * opencode's own read-before-write tracking never sees an earlier read.
 * No session config either: opencode's truncation limits are its own.
 */
const FEATURES = ['sessions'];

/**
 * opencode's config for these runs. Its default for files outside the
 * project directory (`external_directory`) is "ask"; `debug agent` has
 * nobody to ask and goes ahead, so a scenario's escape would reach the real
 * disk. "deny" is the answer a non-interactive session gets: opencode's
 * own permission check then refuses such paths.
 */
const CONFIG = { permission: { external_directory: 'deny' } };

/** opencode keeps config, data, cache and state under XDG dirs: all in the scratch HOME. */
function environment() {
  const home = process.env.HOME; // run sets it to the scratch dir
  return {
    ...process.env,
    PATH: `${codex.rgDir}${path.delimiter}${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    CODEX_HOME: path.join(home, '.codex'),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(CONFIG),
  };
}

/**
 * opencode's external_directory check is lexical: a symlink inside the root
 * leads its writes anywhere. Each call therefore runs inside Codex's
 * workspace sandbox (root and /tmp writable, the rest read-only), so a
 * scenario's escape fails (EROFS) instead of reaching the machine's files.
 */
async function call(name, args, root) {
  const { tool, params } = toOpencode(name, args);
  const argv = [opencode.binary, 'debug', 'agent', 'build', '--pure', '--tool', tool, '--params', JSON.stringify(params)];
  const result = await runSandboxed(codex, root, argv, { cwd: root, env: environment(), timeoutMs: 55_000 });
  return toOutcome(tool, result);
}

fs.mkdirSync(environment().CODEX_HOME, { recursive: true });

await runRootAdapter(
  {
    name: 'opencode',
    version: opencode.version,
    features: FEATURES,
    tools: Object.values(TOOLS).map((t) => t.descriptor),
    call,
  },
  output,
);
