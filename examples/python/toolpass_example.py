#!/usr/bin/env python3
"""A toolpass/1 implementation in standard-library Python: JSON-RPC 2.0, one
message per line on stdin/stdout (logs would go to stderr). It serves
read_file, write_file, edit (exact matching only) and grep_search beneath
each session's root, requires a read before a change, writes atomically and
answers with the canonical error codes. IMPLEMENTING.md walks through it."""
import fnmatch, itertools, json, os, re, stat, sys, tempfile

# Only what is implemented: the runner skips scenarios needing anything else
# (faults, confirmation, spill files) instead of failing them.
FEATURES = ["sessions", "prior_read"]
# The session config it honours; any other key is refused, not ignored.
CONFIG_KEYS = {"truncateToolOutputLines"}
# The umask can only be read by setting it: a new file gets 0o666 & ~UMASK, as
# open(2) would give it, although it is written through a 0600 temporary file.
UMASK = os.umask(0o022)
os.umask(UMASK)

def tool(name, description, required, **optional):
    properties = {key: {"type": "string"} for key in required}
    properties.update({key: {"type": kind} for key, kind in optional.items()})
    schema = {"type": "object", "properties": properties, "required": required}
    return {"name": name, "description": description, "inputSchema": schema}

TOOLS = [  # Qwen Code's names and arguments, which the scenarios call
    tool("read_file", "Reads a file; offset (0-based line) and limit page it.", ["file_path"],
         offset="integer", limit="integer"),
    tool("write_file", "Writes a whole file. Read an existing file first.",
         ["file_path", "content"]),
    tool("edit", "Replaces the exact text old_string with new_string. Read the file first.",
         ["file_path", "old_string", "new_string"], replace_all="boolean"),
    tool("grep_search", "Searches file contents for a regular expression.", ["pattern"],
         path="string", glob="string", limit="integer"),
]

class ToolError(Exception):
    """A tool failure: a successful JSON-RPC reply whose Outcome is an error."""
    def __init__(self, code, text):
        super().__init__(text)
        self.code, self.text = code, text

class RpcError(Exception):
    """A protocol fault (bad params, unknown session): a JSON-RPC error."""

class Session:
    def __init__(self, root, config):
        self.root = os.path.realpath(root)
        self.max_lines = config.get("truncateToolOutputLines", 1000)
        # What the model has seen, by real path: (identity and version of the
        # file when it was read or written, whether it was shown as text).
        self.reads = {}

def outcome(text, code=None, paths=()):
    meta = {"status": "error" if code else "success", "llmContent": text}
    if code:
        meta["error"] = {"code": code, "message": text}
    if paths:
        meta["resultFilePaths"] = list(paths)
    content = [{"type": "text", "text": text}] if text else []
    return {"content": content, "isError": bool(code), "_meta": {"toolpass": meta}}

def argument(args, name, kind=str, default=None, minimum=None):
    value = args.get(name, default)
    if not isinstance(value, kind) or (minimum is not None and value < minimum):
        raise ToolError("invalid_tool_params", f"params/{name} must be a {kind.__name__}"
                        + (f" >= {minimum}" if minimum is not None else ""))
    return value

def locate(session, path):
    """The real path of absolute `path`, refused unless inside the root. Checked
    once, by name: a directory swapped for a symlink after the check can still
    lead out. The reference opens everything beneath a directory handle."""
    if not path.startswith("/"):
        raise ToolError("invalid_tool_params", f"File path must be absolute: {path}")
    real = os.path.realpath(path)
    if os.path.commonpath([real, session.root]) != session.root:
        raise ToolError("path_not_in_workspace", f"Path is not in the workspace: {path}")
    return real

def fingerprint(st):
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)

def read_text(path):
    """(text or None when binary, fingerprint of the bytes read): one open file."""
    with open(path, "rb") as f:
        st, data = os.fstat(f.fileno()), f.read()
    try:
        return (None if b"\0" in data[:4096] else data.decode("utf-8")), fingerprint(st)
    except UnicodeDecodeError:
        return None, fingerprint(st)

GUIDANCE = {"editing": "(a partial read with offset / limit is fine)",
            "overwriting": "(read the full file; overwriting replaces every byte)"}

def check_prior_read(session, real, shown, verb):
    """None for a new file; else the fingerprint of the read, which must still
    hold. Any read counts, partial or by a grep match, if it showed text."""
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return None
    except OSError as e:  # cannot tell whether it was read: fail closed
        raise ToolError("prior_read_verification_failed", f"Could not stat {shown}: {e.strerror}")
    if stat.S_ISDIR(st.st_mode):
        raise ToolError("target_is_directory", f"{shown} is a directory.")
    seen, was_text = session.reads.get(real, (None, False))
    if seen is None or not stat.S_ISREG(st.st_mode):
        raise ToolError("edit_requires_prior_read", f"File {shown} has not been read in this "
                        f"session. Use the read_file tool first {GUIDANCE[verb]} before {verb} it.")
    if seen != fingerprint(st):
        raise ToolError("file_changed_since_read", f"File {shown} has been modified since you last "
                        f"read it (mtime or size changed). Re-read it before {verb} it.")
    if not was_text:
        raise ToolError("edit_requires_prior_read", f"File {shown} was read as binary, not text; "
                        "re-reading it would not change this.")
    if not st.st_mode & 0o222:  # a rename would replace a file marked "do not change me"
        raise ToolError("permission_denied", f"File {shown} is read-only.")
    return seen

def atomic_write(session, real, text, expected):
    """A temporary file beside the target, renamed over it: readers see the old
    bytes or the new, never a torn file. The fingerprint is compared again just
    before the rename, so a change made meanwhile is kept, not overwritten."""
    os.makedirs(os.path.dirname(real), exist_ok=True)
    mode = os.stat(real).st_mode & 0o7777 if expected else 0o666 & ~UMASK
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=".toolpass-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
            written = fingerprint(os.fstat(f.fileno()))  # what the rename puts in place
        os.chmod(temp, mode)
        if expected and fingerprint(os.stat(real)) != expected:
            raise ToolError("file_changed_since_read", f"File {real} changed meanwhile; re-read.")
        os.replace(temp, real)
    except BaseException:
        os.unlink(temp)
        raise
    session.reads[real] = (written, True)  # the model knows what it wrote

def read_file(session, args):
    shown = argument(args, "file_path")
    real = locate(session, shown)
    if os.path.isdir(real):
        raise ToolError("target_is_directory", f"Path is a directory, not a file: {shown}")
    if not os.path.exists(real):
        raise ToolError("file_not_found", f"File not found: {shown}")
    if not os.path.isfile(real):  # a FIFO or a device: opening it could block forever
        raise ToolError("target_not_regular_file", f"Not a regular file: {shown}")
    offset = argument(args, "offset", int, 0, minimum=0)
    limit = argument(args, "limit", int, session.max_lines, minimum=1)
    text, seen = read_text(real)
    session.reads[real] = (seen, text is not None)  # even when only some lines are shown
    if text is None:
        rel = os.path.relpath(real, session.root)
        return outcome(f"Cannot display content of binary file: {rel}")
    lines = text.split("\n")
    end = min(len(lines), offset + limit)
    body = "\n".join(lines[offset:end])
    if offset == 0 and end == len(lines):
        return outcome(body)
    header = f"Showing lines {offset + 1}-{end} of {len(lines)} total lines."
    return outcome(f"{header}\n\n---\n\n{body}")

def write_file(session, args):
    shown, content = argument(args, "file_path"), argument(args, "content")
    real = locate(session, shown)
    if os.path.isdir(shown) and not os.path.islink(shown):
        raise ToolError("invalid_tool_params", f"Path is a directory, not a file: {shown}")
    seen = check_prior_read(session, real, shown, "overwriting")
    atomic_write(session, real, content, seen)
    return outcome(f"Successfully overwrote file: {shown}." if seen
                   else f"Successfully created and wrote to new file: {shown}.")

def edit(session, args):
    shown, old, new = (argument(args, key) for key in ("file_path", "old_string", "new_string"))
    real = locate(session, shown)
    seen = check_prior_read(session, real, shown, "editing")
    if seen is None:  # no such file: an empty old_string creates it
        if old:
            raise ToolError("file_not_found", f"File not found: {shown}")
        atomic_write(session, real, new, None)
        return outcome(f"Created new file: {shown} with provided content.")
    if not old:
        raise ToolError("attempt_to_create_existing_file",
                        f"File already exists, cannot create: {shown}")
    text, now = read_text(real)
    if text is None or now != seen:  # changed since the check above
        raise ToolError("file_changed_since_read", f"File {shown} changed meanwhile; re-read it.")
    if "\r\n" in text:  # the model writes \n; a CRLF file must not turn mixed
        old, new = (s.replace("\r\n", "\n").replace("\n", "\r\n") for s in (old, new))
    if not new and not old.endswith("\n") and old + "\n" in text:
        old += "\n"  # deleting a whole line deletes its line break too, as Qwen Code does
    count = text.count(old)
    if count == 0:
        raise ToolError("edit_no_occurrence_found", f"Failed to edit, 0 occurrences found for "
                        f"old_string in {shown}. No edits made. Use read_file to verify.")
    if count > 1 and not argument(args, "replace_all", bool, False):
        raise ToolError("edit_expected_occurrence_mismatch", f"Failed to edit. Found {count} "
                        f"occurrences for old_string in {shown} but replace_all was not enabled.")
    if old == new:
        raise ToolError("edit_no_change",
                        "No changes to apply. The old_string and new_string are identical.")
    atomic_write(session, real, text.replace(old, new), seen)
    return outcome(f"The file: {shown} has been updated.")

def grep_search(session, args):
    pattern = argument(args, "pattern")
    try:
        regex = re.compile(pattern)
    except re.error as e:
        raise ToolError("invalid_tool_params", f"Invalid regular expression: {e}") from None
    # A relative path is relative to the root (joining an absolute one keeps it).
    base = locate(session, os.path.join(session.root, argument(args, "path", default=".")))
    limit = argument(args, "limit", int, session.max_lines, minimum=1)
    glob = argument(args, "glob", default="*")
    if not os.path.isdir(base):
        raise ToolError("invalid_tool_params", f"Path does not exist or is not a directory: {base}")
    hits = []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = [d for d in subdirs if d not in (".git", "node_modules")]
        for path in (os.path.join(directory, name) for name in fnmatch.filter(files, glob)):
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue  # never a FIFO (it would block) nor a symlink (it may lead out)
                text, seen = read_text(path)
            except OSError:
                continue  # unreadable, or gone since the walk listed it
            lines = enumerate((text or "").split("\n"), 1)
            found = [(n, line) for n, line in lines if regex.search(line)]
            if found:
                hits.append((os.path.relpath(path, base), path, found, seen))
    where = (f'in path "{base}"' if "path" in args else "in the workspace directory") + (
        f' (filter: "{glob}")' if "glob" in args else "")
    if not hits:
        return outcome(f'No matches found for pattern "{pattern}" {where}.')
    hits.sort()
    total, shown, paths = sum(len(hit[2]) for hit in hits), 0, []
    text = f'Found {total} match{"es" if total > 1 else ""} for pattern "{pattern}" {where}:\n---\n'
    for rel, path, found, seen in hits:
        if shown < limit:  # the model sees part of this file: that counts as a read
            session.reads[path] = (seen, True)
            paths.append(path)
            lines = "".join(f"L{n}: {line.strip()}\n" for n, line in found[:limit - shown])
            text += f"File: {rel}\n{lines}"
            text, shown = text + "---\n", min(limit, shown + len(found))
    left = total - shown
    if not left:
        return outcome(text.rstrip("\n"), paths=paths)
    return outcome(f"{text} [{left} line{'s' if left > 1 else ''} truncated] ...", paths=paths)

HANDLERS = {"read_file": read_file, "write_file": write_file, "edit": edit,
            "grep_search": grep_search}
sessions, SESSION_IDS = {}, itertools.count(1)

def session_of(params):
    """The session a request names: `_meta.toolpass.sessionId` of a call, else `sessionId`."""
    context = (params.get("_meta") or {}).get("toolpass") or {}
    session_id = context.get("sessionId", params.get("sessionId"))
    if session_id not in sessions:
        raise RpcError(-32010, f"unknown session {session_id!r}: open one first")
    return sessions[session_id]

def handle(method, params):
    if method == "initialize":
        return {"protocolVersion": "toolpass/1",
                "serverInfo": {"name": "toolpass-python-example", "version": "0.1.0"},
                "capabilities": {"tools": {}, "toolpass": {"version": 1, "features": FEATURES}}}
    if method == "toolpass/session.open":
        root, config = params.get("root"), params.get("config") or {}
        if not isinstance(root, str) or not os.path.isabs(root) or not os.path.isdir(root):
            raise RpcError(-32602, f"root {root!r} is not an absolute path to a directory")
        if set(config) - CONFIG_KEYS:  # a setting ignored silently would fake a pass
            raise RpcError(-32602, f"config not supported: {sorted(set(config) - CONFIG_KEYS)}")
        session_id = f"s{next(SESSION_IDS)}"
        sessions[session_id] = Session(root, config)
        return {"sessionId": session_id}
    if method == "toolpass/session.close":
        session_of(params)
        del sessions[params["sessionId"]]
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        session, name = session_of(params), params.get("name")
        if name not in HANDLERS:
            return outcome(f'Tool "{name}" not found in registry.', "tool_not_registered")
        try:
            return HANDLERS[name](session, params.get("arguments") or {})
        except ToolError as e:
            return outcome(e.text, e.code)
        except Exception as e:  # what the checks above did not foresee is still an Outcome
            code = "permission_denied" if isinstance(e, PermissionError) else "unhandled_exception"
            return outcome(f"{type(e).__name__}: {e}", code)
    raise RpcError(-32601, f"method not found: {method}")

def answer(line):
    """The reply to one line: a result, a JSON-RPC error, or None for a notification."""
    try:
        message = json.loads(line)
    except ValueError as e:
        return rpc_error(None, -32700, f"parse error: {e}")
    if not isinstance(message, dict):
        return rpc_error(None, -32600, "not a message object")
    if "id" not in message:
        return None  # a notification (notifications/initialized): no answer
    params = message.get("params") or {}
    try:
        if not isinstance(params, dict):
            raise RpcError(-32602, "params must be an object")
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": handle(message.get("method"), params)}
    except RpcError as e:
        return rpc_error(message["id"], *e.args)
    except Exception as e:  # a bug here must not end the process: report it, serve the next line
        return rpc_error(message["id"], -32603, f"internal error: {type(e).__name__}: {e}")

def rpc_error(request_id, code, text):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}

def main():
    for line in sys.stdin:
        reply = answer(line)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()

if __name__ == "__main__":
    main()
