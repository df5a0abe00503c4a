// Locates Qwen Code's exports in its code-split bundle. Chunk file names
// carry content hashes that change every release, so they are never written
// down: every chunk ends with an `export { local as Name, ... }` block, and
// the index maps each exported name to the chunk that exports it.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Export name -> chunk file, from the `export {...}` blocks of `dir`. */
export function indexExports(dir) {
  const index = new Map();
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.js')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const block of text.matchAll(/(?:^|\n)export\s*\{([^}]*)\}/g)) {
      for (const part of block[1].split(',')) {
        const spec = part.trim();
        if (!spec) continue;
        const [local, exported] = spec.split(/\s+as\s+/);
        const name = (exported ?? local).trim();
        // The first chunk wins: later ones re-export shared helpers.
        if (!index.has(name)) index.set(name, path.join(dir, file));
      }
    }
  }
  return index;
}

/** Imports the named exports; fails naming every one that is missing. */
export async function load(index, names) {
  const missing = names.filter((n) => !index.has(n));
  if (missing.length > 0) {
    throw new Error(`the Qwen Code bundle exports no ${missing.join(', ')}`);
  }
  const out = {};
  for (const name of names) {
    const module = await import(pathToFileURL(index.get(name)).href);
    out[name] = module[name];
  }
  return out;
}
