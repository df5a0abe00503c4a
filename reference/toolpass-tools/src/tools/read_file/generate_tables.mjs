// Generates read_file/tables.rs from an installed @qwen-code/qwen-code package:
//   node generate_tables.mjs node_modules/@qwen-code/qwen-code/chunks > tables.rs
import fs from 'node:fs';
import path from 'node:path';
const chunks = process.argv[2];
let src = null;
for (const f of fs.readdirSync(chunks)) {
  const t = fs.readFileSync(path.join(chunks, f), 'utf8');
  if (t.includes('// packages/core/src/utils/fileUtils.ts') && t.includes('var BINARY_EXTENSIONS = [')) { src = t; break; }
}
const grab = (start, end) => { const i = src.indexOf(start); const j = src.indexOf(end, i); return src.slice(i, j + end.length); };
const typesSrc = grab('var types = {', '};');
const patSrc = grab('var BINARY_FILE_PATTERNS = [', '];') + '\n' + grab('var MEDIA_FILE_PATTERNS = [', '];') + '\n' + grab('var PYTHON_EXCLUDES = [', '];');
const extractSrc = grab('function extractExtensionsFromPatterns(patterns) {', '\n}');
const binSrc = grab('var BINARY_EXTENSIONS = [', '].sort();');
const textExtSrc = grab('var KNOWN_TEXT_EXTENSIONS = /* @__PURE__ */ new Set([', ']);');
const textBaseSrc = grab('var KNOWN_TEXT_BASENAMES = /* @__PURE__ */ new Set([', ']);');
const appSrc = grab('var KNOWN_TEXT_APPLICATION_MIMES = /* @__PURE__ */ new Set([', ']);');
const missSrc = grab('var MIME_LITE_MISSING_MEDIA_TYPES = /* @__PURE__ */ new Map([', ']);');
const code = `const __name = (f) => f; const path2 = path;\n${typesSrc}\n${patSrc}\n${extractSrc}\n${binSrc}\n${textExtSrc}\n${textBaseSrc}\n${appSrc}\n${missSrc}\nreturn {types, BINARY_EXTENSIONS, KNOWN_TEXT_EXTENSIONS, KNOWN_TEXT_BASENAMES, KNOWN_TEXT_APPLICATION_MIMES, MIME_LITE_MISSING_MEDIA_TYPES};`;
const t = new Function('path', code)(path);
const ext2type = new Map();
for (const [type, exts] of Object.entries(t.types)) for (let e of exts) { if (e.startsWith('*')) continue; ext2type.set(e.toLowerCase(), type.toLowerCase()); }
const isText = (m) => m.startsWith('text/') || m.endsWith('+xml') || m.endsWith('+json') || t.KNOWN_TEXT_APPLICATION_MIMES.has(m);
const rows = [];
for (const [e, m] of [...ext2type].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
  if (m.startsWith('image/') || m.startsWith('audio/') || m.startsWith('video/') || m === 'application/pdf' || isText(m)) rows.push([e, m]);
}
const q = (s) => JSON.stringify(s);
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
let out = `//! Tables of Qwen Code 0.24.4's \`detectFileType\` (packages/core/src/utils/fileUtils.ts), generated\n//! by \`generate.mjs\` beside this file from the published bundle; do not edit by hand.\n//!\n//! \`MIME_TYPES\` holds the extensions of the \`mime\` package's standard table (mime-db, MIT) whose\n//! type decides the file kind (image, audio, video, PDF, text); every other extension behaves as\n//! if it had no type. The extension lists are Qwen Code's (Apache-2.0).\n\n`;
out += `/// Extension (lowercase, no dot) to MIME type, sorted by extension.\npub(super) const MIME_TYPES: &[(&str, &str)] = &[\n${rows.map(([e, m]) => `    (${q(e)}, ${q(m)}),`).join('\n')}\n];\n\n`;
out += `/// Media types the \`mime\` package lacks (\`MIME_LITE_MISSING_MEDIA_TYPES\`), by extension with the dot.\npub(super) const MISSING_MEDIA_TYPES: &[(&str, &str)] = &[\n${[...t.MIME_LITE_MISSING_MEDIA_TYPES].map(([e, m]) => `    (${q(e)}, ${q(m)}),`).join('\n')}\n];\n\n`;
out += `/// \`BINARY_EXTENSIONS\`, with the dot, sorted.\npub(super) const BINARY_EXTENSIONS: &[&str] = &[\n${[...t.BINARY_EXTENSIONS].sort(cmp).map((e) => `    ${q(e)},`).join('\n')}\n];\n\n`;
out += `/// \`KNOWN_TEXT_EXTENSIONS\`, with the dot, sorted.\npub(super) const KNOWN_TEXT_EXTENSIONS: &[&str] = &[\n${[...t.KNOWN_TEXT_EXTENSIONS].sort(cmp).map((e) => `    ${q(e)},`).join('\n')}\n];\n\n`;
out += `/// \`KNOWN_TEXT_BASENAMES\`, sorted.\npub(super) const KNOWN_TEXT_BASENAMES: &[&str] = &[\n${[...t.KNOWN_TEXT_BASENAMES].sort(cmp).map((e) => `    ${q(e)},`).join('\n')}\n];\n\n`;
out += `/// \`KNOWN_TEXT_APPLICATION_MIMES\`, sorted.\npub(super) const KNOWN_TEXT_APPLICATION_MIMES: &[&str] = &[\n${[...t.KNOWN_TEXT_APPLICATION_MIMES].sort(cmp).map((e) => `    ${q(e)},`).join('\n')}\n];\n`;
process.stdout.write(out);
