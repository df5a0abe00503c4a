// Finding a peer's installed files by package metadata, never by a
// hard-coded path: an npm package is resolved from the adapter's own
// package.json, as Node's own resolution would find it.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

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

/** A sandboxed program's stderr without the warnings Codex's sandbox launcher adds. */
export function withoutSandboxWarnings(stderr) {
  return stderr
    .split('\n')
    .filter((line) => !line.startsWith('WARNING: '))
    .join('\n')
    .trim();
}
