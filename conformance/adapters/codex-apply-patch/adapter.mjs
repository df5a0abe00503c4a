// toolpass/1 adapter for the apply_patch tool of OpenAI Codex's published
// binary (`@openai/codex`, pinned in package.json). apply_patch is the one
// Codex tool reachable without its model loop: the binary run under the
// name `apply_patch` reads a patch on stdin and applies it in its cwd.
// `edit` calls become patches (lib/patch.mjs); no other tool exists here.
// Each patch is applied inside Codex's workspace sandbox (see applyPatchLink).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { failure } from '../common/outcome.mjs';
import { codexVendor, runSandboxed } from '../common/peers.mjs';
import { claimStdout, runRootAdapter } from '../common/server.mjs';
import { editDescriptor } from '../common/tools.mjs';
import { buildEditPatch, editArguments } from './lib/patch.mjs';
import { toOutcome } from './lib/outcome.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const output = claimStdout();

const vendor = codexVendor(here);
if (!vendor) {
  process.stderr.write(
    `codex-apply-patch adapter: @openai/codex's platform binary is not installed under ${here}/node_modules; ` +
      'run `just adapter-setup codex-apply-patch`\n',
  );
  process.exit(3);
}

/**
 * Sessions only: apply_patch keeps no state between calls, so there is no
 * prior-read check to advertise, and it has no settings a session config
 * could carry.
 */
const FEATURES = ['sessions'];

const EDIT = editDescriptor(
  "Replaces old_string with new_string in a file, sent to Codex's apply_patch as a one-hunk patch " +
    '(an empty old_string adds the file).',
);

/** The file's text for widening old_string to whole lines, if it can be read. */
function currentText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * apply_patch runs inside Codex's own sandbox with its built-in
 * `:workspace` permission profile (the default of Codex's "auto" mode):
 * the session root and /tmp writable, the rest of the disk read-only. The
 * binary is reached through a link named `apply_patch` (argv0 dispatch)
 * in the scratch HOME, so the patch goes on stdin, unbounded by argv.
 */
function applyPatchLink() {
  const home = process.env.HOME ?? os.tmpdir();
  const link = path.join(home, 'bin', 'apply_patch');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  if (!fs.existsSync(link)) fs.symlinkSync(vendor.codex, link);
  fs.mkdirSync(process.env.CODEX_HOME ?? path.join(home, '.codex'), { recursive: true });
  return link;
}
const applyPatch = applyPatchLink();

async function callEdit(name, args, root) {
  const edit = editArguments(args);
  if (!edit.ok) return failure('invalid_tool_params', edit.message);
  const absolute = path.resolve(root, edit.path);
  const { patch } = buildEditPatch({
    ...edit,
    fileText: edit.oldString === '' ? undefined : currentText(absolute),
  });
  const result = await runSandboxed(vendor, root, [applyPatch], {
    cwd: root,
    env: process.env,
    input: patch,
    timeoutMs: 60_000,
  });
  return toOutcome(result);
}

await runRootAdapter(
  { name: 'codex-apply-patch', version: vendor.version, features: FEATURES, tools: [EDIT], call: callEdit },
  output,
);
