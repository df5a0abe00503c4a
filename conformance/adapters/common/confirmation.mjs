// The confirmation details Gemini CLI's scheduler parks a call with
// (`ToolCallConfirmationDetails`, packages/core/src/tools/tools.ts), which
// Qwen Code kept when it forked Gemini CLI, as toolpass/1 Confirmations:
// the types both have the same members in. Pure, so it is tested without a
// peer.

/**
 * `edit`, `exec`, `mcp` and `info` details -> a toolpass Confirmation;
 * undefined for any other type, which is the adapter's to map or refuse.
 */
export function sharedConfirmation(details) {
  const { type, title } = details ?? {};
  switch (type) {
    case 'edit': {
      const edit = { type, title, path: details.filePath, diff: details.fileDiff, new: details.newContent };
      // A file the call would create has no content before (null).
      if (typeof details.originalContent === 'string') edit.old = details.originalContent;
      return edit;
    }
    case 'exec':
      return { type, title, command: details.command, rootCommand: details.rootCommand };
    case 'mcp':
      return {
        type,
        title,
        serverName: details.serverName,
        toolName: details.toolName,
        toolDisplayName: details.toolDisplayName,
      };
    case 'info': {
      const info = { type, title, prompt: details.prompt ?? '' };
      if (Array.isArray(details.urls) && details.urls.length > 0) info.urls = details.urls;
      return info;
    }
    default:
      return undefined;
  }
}

/** One question of a peer's questionnaire as toolpass/1's `Question`. */
export function toQuestion({ question, header, options, multiSelect }) {
  return {
    question,
    header: header ?? '',
    options: (options ?? []).map(({ label, description }) => ({ label, description: description ?? '' })),
    multiSelect: Boolean(multiSelect),
  };
}
