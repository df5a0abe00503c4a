// Finding a peer's installed files by package metadata, never by a
// hard-coded path: an npm package is resolved from the adapter's own
// package.json, as Node's own resolution would find it.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { runProcess } from './process.mjs';

/** The directory of package `name` as seen from `adapterDir`, or undefined. */
export function packageDir(adapterDir, name) {
  const require = createRequire(path.join(adapterDir, 'package.json'));
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** The version in a package directory's package.json. */
export function packageVersion(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

/** The Rust target triple `@openai/codex` ships for this platform, or undefined. */
export function codexTriple(platform = process.platform, arch = process.arch) {
  const triples = {
    'linux-x64': 'x86_64-unknown-linux-musl',
    'linux-arm64': 'aarch64-unknown-linux-musl',
    'darwin-x64': 'x86_64-apple-darwin',
    'darwin-arm64': 'aarch64-apple-darwin',
  };
  return triples[`${platform}-${arch}`];
}

/**
 * The files of `@openai/codex`'s platform package (an npm alias,
 * `@openai/codex-<platform>-<arch>`, as its launcher resolves it):
 * {version, codex (the binary), rgDir (the directory holding its `rg`)},
 * or undefined when it is not installed.
 */
export function codexVendor(adapterDir, platform = process.platform, arch = process.arch) {
  const triple = codexTriple(platform, arch);
  const launcher = packageDir(adapterDir, '@openai/codex');
  if (!triple || !launcher) return undefined;
  const vendorPackage = packageDir(launcher, `@openai/codex-${platform}-${arch}`) ?? launcher;
  const root = path.join(vendorPackage, 'vendor', triple);
  const codex = path.join(root, 'bin', 'codex');
  if (!fs.existsSync(codex)) return undefined;
  return { version: packageVersion(launcher), codex, rgDir: path.join(root, 'codex-path') };
}

/**
 * `argv` run inside Codex's own sandbox with its built-in `:workspace`
 * permission profile: `root` and /tmp writable, the rest of the disk
 * read-only (Landlock/bubblewrap, as Codex runs its tools). Returns
 * [file, args] for runProcess. It needs HOME's `.codex` (CODEX_HOME) to exist.
 */
export function inCodexSandbox(vendor, root, argv) {
  return [vendor.codex, ['sandbox', '-P', ':workspace', '-C', root, '--', ...argv]];
}

/**
 * runProcess of `argv` inside Codex's sandbox, then the empty `.git`
 * directories the sandbox leaves in its writable temp roots removed (it
 * creates them there to mount its read-only `.git` guard). Left behind, a
 * `/tmp/.git` puts every later sandbox of every implementation inside a
 * "git repository". Only a `.git` that was not there before the call and
 * is still empty is removed.
 */
export async function runSandboxed(vendor, root, argv, options = {}) {
  const temps = [...new Set([os.tmpdir(), options.env?.TMPDIR, '/tmp'].filter(Boolean))];
  const guards = temps.map((dir) => path.join(dir, '.git')).filter((git) => !fs.existsSync(git));
  try {
    return await runProcess(...inCodexSandbox(vendor, root, argv), options);
  } finally {
    for (const git of guards) removeIfEmptyDir(git);
  }
}

/** rmdir `dir` if it is an empty directory; anything else is left alone. */
export function removeIfEmptyDir(dir) {
  try {
    fs.rmdirSync(dir);
  } catch {
    // Absent, not empty, or not a directory: not ours to remove.
  }
}

/** A sandboxed program's stderr without the warnings Codex's sandbox launcher adds. */
export function withoutSandboxWarnings(stderr) {
  return stderr
    .split('\n')
    .filter((line) => !line.startsWith('WARNING: '))
    .join('\n')
    .trim();
}
