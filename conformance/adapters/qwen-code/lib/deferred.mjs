// The deferred tools of a session as `tools/list` shows them beside the
// declarations: `_meta.toolpass.deferredTools` (their names) and
// `deferredReminder` (the system reminder the model is sent). Both come
// from Qwen's registry, passed in, so this is tested without the bundle.

/**
 * `{_meta: {toolpass: {deferredTools, deferredReminder}}}` for `registry`,
 * or `{}` when no tool is deferred and hidden. The names are those Qwen's
 * `buildDeferredToolsReminder` lists: `getDeferredToolSummary()` (deferred,
 * not always loaded, declared, not made visible; sorted by localeCompare)
 * less the revealed ones; the reminder is that function's text, or absent
 * when it sends none (it sends none without tool_search and tool_call).
 */
export function deferredListing(registry, buildDeferredToolsReminder) {
  const names = registry
    .getDeferredToolSummary()
    .filter((tool) => !registry.isDeferredToolRevealed(tool.name))
    .map((tool) => tool.name);
  if (names.length === 0) return {};
  const toolpass = { deferredTools: names };
  const reminder = buildDeferredToolsReminder(registry);
  if (typeof reminder === 'string') toolpass.deferredReminder = reminder;
  return { _meta: { toolpass } };
}
