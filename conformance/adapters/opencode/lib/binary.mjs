// Where `opencode-ai`'s platform binary is. Its postinstall script (not run
// with --ignore-scripts) copies one of the optional platform packages'
// binaries over a stub; this picks the same package the same way: the
// plain build where the CPU has AVX2, the `-baseline` build otherwise.

import fs from 'node:fs';
import path from 'node:path';

import { packageDir, packageVersion } from '../../common/peers.mjs';

/** The platform packages to try, best first. */
export function candidates(platform, arch, avx2) {
  const base = `opencode-${platform === 'win32' ? 'windows' : platform}-${arch}`;
  if (arch !== 'x64') return [base];
  return avx2 ? [base, `${base}-baseline`] : [`${base}-baseline`, base];
}

function hasAvx2() {
  try {
    return /(^|\s)avx2(\s|$)/i.test(fs.readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

/** {version, binary} of the installed opencode, or undefined. */
export function opencodeBinary(adapterDir) {
  const launcher = packageDir(adapterDir, 'opencode-ai');
  if (!launcher) return undefined;
  for (const name of candidates(process.platform, process.arch, hasAvx2())) {
    const dir = packageDir(launcher, name);
    const binary = dir && path.join(dir, 'bin', process.platform === 'win32' ? 'opencode.exe' : 'opencode');
    if (binary && fs.existsSync(binary)) return { version: packageVersion(launcher), binary };
  }
  return undefined;
}
