// Which grep backend Qwen runs under this adapter, pinned so that it does
// not depend on the machine's PATH.
//
// Qwen Code defaults to `useRipgrep: true` and prefers the ripgrep it
// bundles (`vendor/ripgrep/<arch>-<platform>/rg`); it falls back to a
// system `rg`, then to its GrepTool (grep -r / git grep), only when that
// binary does not run. Qwen's repository makes the binary executable in a
// postinstall script, but the published 0.24.4 package carries no install
// scripts and ships the file as 0644, so what an npm user gets depends on
// whether an `rg` is on their PATH. The adapter pins the configuration Qwen
// is built for: its bundled ripgrep, made executable by
// `just adapter-setup qwen-code` as Qwen's own postinstall would.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The bundled ripgrep's path for this platform, as Qwen computes it. */
export function bundledRipgrepPath(pkg, platform = process.platform, arch = process.arch) {
  if (!['darwin', 'linux', 'win32'].includes(platform) || !['x64', 'arm64'].includes(arch)) {
    return null;
  }
  const binary = platform === 'win32' ? 'rg.exe' : 'rg';
  return path.join(pkg, 'vendor', 'ripgrep', `${arch}-${platform}`, binary);
}

/**
 * The bundled ripgrep's path and version, or an Error saying why Qwen would
 * not run it (then Qwen would silently take another backend).
 */
export function pinnedRipgrep(pkg, platform = process.platform, arch = process.arch) {
  const rg = bundledRipgrepPath(pkg, platform, arch);
  if (!rg) return new Error(`Qwen bundles no ripgrep for ${arch}-${platform}`);
  try {
    fs.accessSync(rg, fs.constants.X_OK);
  } catch (error) {
    return new Error(
      `Qwen's bundled ripgrep ${rg} is not executable (${error.code}); ` +
        'run `just adapter-setup qwen-code`, which sets its execute bit as Qwen\'s postinstall does',
    );
  }
  let banner;
  try {
    banner = execFileSync(rg, ['--version'], { encoding: 'utf8', timeout: 5000 });
  } catch (error) {
    return new Error(`Qwen's bundled ripgrep ${rg} does not run: ${error.message}`);
  }
  // Qwen's own health check: exit 0 and a banner starting "ripgrep".
  const version = /^ripgrep (\S+)/.exec(banner)?.[1];
  if (!version) return new Error(`${rg} --version printed no ripgrep banner: ${banner.trim()}`);
  return { path: rg, version };
}
