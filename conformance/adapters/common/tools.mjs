// MCP descriptors for the toolpass tool names (Qwen Code's), for adapters
// whose peer has no declarations of these names to pass through. Each
// adapter declares only the arguments it maps onto its peer.

/** Every argument an adapter may map, with its JSON Schema. */
const ARGUMENTS = {
  file_path: { type: 'string', description: 'The absolute path of the file.' },
  offset: { type: 'number', description: 'The 0-based line to start reading from.' },
  limit: { type: 'number', description: 'How many lines to read.' },
  content: { type: 'string', description: 'The whole content to write.' },
  old_string: { type: 'string', description: 'The exact text to replace.' },
  new_string: { type: 'string', description: 'The text to replace it with.' },
  replace_all: { type: 'boolean', description: 'Replace every occurrence of old_string.' },
  pattern: { type: 'string', description: 'The pattern to search for.' },
  path: { type: 'string', description: 'The directory to search or list.' },
  glob: { type: 'string', description: 'Only search files whose names match this glob.' },
  command: { type: 'string', description: 'The shell command to run.' },
  description: { type: 'string', description: 'What the command does.' },
  directory: { type: 'string', description: 'The directory to run the command in.' },
};

/**
 * A descriptor: `args` names the declared arguments, `required` those the
 * model must give; `description` says what the peer does with the call.
 */
export function descriptor(name, description, args, required) {
  const properties = Object.fromEntries(
    args.map((arg) => {
      const schema = ARGUMENTS[arg];
      if (!schema) throw new Error(`no schema for argument ${arg}`);
      return [arg, schema];
    }),
  );
  return { name, description, inputSchema: { type: 'object', properties, required } };
}

/** The `edit` descriptor: Qwen's arguments, with `description` saying what the peer does. */
export function editDescriptor(description) {
  return descriptor('edit', description, ['file_path', 'old_string', 'new_string', 'replace_all'], ['file_path', 'old_string', 'new_string']);
}
