// An `edit` call -> the apply_patch text a model would write for it. Pure:
// the adapter passes the file's current text in (the model has read the
// file before patching it), so this is tested without the binary.
//
// apply_patch works on whole lines, `edit` on any substring:
// - old_string found verbatim in the file: each occurrence used (the first,
//   or every one with replace_all) is widened to the whole lines around it,
//   and the new lines are those lines with the replacement made. Regions
//   that share a line are merged. A replacement that drops the final line
//   break of its region takes the next line in, so lines join as `edit`
//   would join them.
// - old_string not found verbatim (or no file text): its own lines are
//   sent as the `-` lines, and apply_patch's own matching (which forgives
//   trailing and surrounding whitespace) decides.
// - empty old_string: an `*** Add File` with new_string's lines.
// Line endings: lines are split on `\n` only, so a CRLF file's `\r` stays
// at the end of each `-`/`+` line; what apply_patch makes of it is its own
// behaviour.

/** The lines of `text` as apply_patch sees them: split on `\n`, one final line break dropped. */
export function patchLines(text) {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n');
}

/** Start offsets of `needle` in `text`: the first, or every non-overlapping one. */
export function occurrences(text, needle, all) {
  const found = [];
  let at = text.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    if (!all) break;
    at = text.indexOf(needle, at + needle.length);
  }
  return found;
}

const lineStart = (text, at) => text.lastIndexOf('\n', at - 1) + 1;

/** The end of the line holding offset `at - 1`: just past its `\n`, or the end of the text. */
function lineEnd(text, at) {
  if (at > 0 && text[at - 1] === '\n') return at;
  const newline = text.indexOf('\n', at);
  return newline === -1 ? text.length : newline + 1;
}

/**
 * Whole-line regions of `text` covering each replacement, merged where they
 * touch a shared line: [{start, end, old, new}] with `old`/`new` the
 * region's text before and after.
 */
export function lineRegions(text, oldString, newString, starts) {
  const regions = [];
  for (const at of starts) {
    const last = regions[regions.length - 1];
    const start = lineStart(text, at);
    if (last && start < last.end) {
      last.replacements.push(at);
      last.end = Math.max(last.end, lineEnd(text, at + oldString.length));
    } else {
      regions.push({ start, end: lineEnd(text, at + oldString.length), replacements: [at] });
    }
  }
  return regions.map((region) => {
    let { end } = region;
    let replaced = rewrite(text, region.start, end, region.replacements, oldString, newString);
    // A region ending in a line break whose new text lost it joins the next line.
    while (text[end - 1] === '\n' && !replaced.endsWith('\n') && end < text.length && replaced !== '') {
      end = lineEnd(text, end + 1);
      replaced = rewrite(text, region.start, end, region.replacements, oldString, newString);
    }
    return { start: region.start, end, old: text.slice(region.start, end), new: replaced };
  });
}

function rewrite(text, start, end, replacements, oldString, newString) {
  let out = '';
  let from = start;
  for (const at of replacements) {
    out += text.slice(from, at) + newString;
    from = at + oldString.length;
  }
  return out + text.slice(from, end);
}

/** One `@@` chunk: `-` the old lines, `+` the new ones. */
function chunk(oldText, newText) {
  const minus = patchLines(oldText).map((l) => `-${l}`);
  const plus = newText === '' ? [] : patchLines(newText).map((l) => `+${l}`);
  return ['@@', ...minus, ...plus];
}

/**
 * The patch for an edit. `fileText` is the file's current text, or
 * undefined when it could not be read (apply_patch then reports why).
 * Returns {patch, kind: 'add' | 'update', widened: whether the file's lines
 * were used}.
 */
export function buildEditPatch({ path, oldString, newString, replaceAll = false, fileText }) {
  if (oldString === '') {
    const plus = newString === '' ? [] : patchLines(newString).map((l) => `+${l}`);
    return { patch: wrap([`*** Add File: ${path}`, ...plus]), kind: 'add', widened: false };
  }
  const starts = typeof fileText === 'string' ? occurrences(fileText, oldString, replaceAll) : [];
  if (starts.length === 0) {
    return {
      patch: wrap([`*** Update File: ${path}`, ...chunk(oldString, newString)]),
      kind: 'update',
      widened: false,
    };
  }
  const chunks = lineRegions(fileText, oldString, newString, starts).flatMap((r) => chunk(r.old, r.new));
  return { patch: wrap([`*** Update File: ${path}`, ...chunks]), kind: 'update', widened: true };
}

function wrap(lines) {
  return ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
}

/**
 * The edit arguments checked against the declared schema (apply_patch has
 * none of its own): {ok: true, ...} or {ok: false, message}.
 */
export function editArguments(args) {
  const { file_path: path, old_string: oldString, new_string: newString, replace_all: replaceAll } = args ?? {};
  for (const [name, value] of Object.entries({ file_path: path, old_string: oldString, new_string: newString })) {
    if (typeof value !== 'string') return { ok: false, message: `params/${name} must be string` };
  }
  if (replaceAll !== undefined && typeof replaceAll !== 'boolean') {
    return { ok: false, message: 'params/replace_all must be boolean' };
  }
  return { ok: true, path, oldString, newString, replaceAll: replaceAll === true };
}
