import type { ExtensionStateEntry, SessionEntry } from "./schema.ts";

/**
 * Reading what extensions saved in a session (`extension_state` entries): each save is a whole state,
 * so the latest one is the extension's state; states saved under a tool call (a subagent's transcript)
 * are told apart by its id.
 */

/**
 * The latest state `extension` saved at the session's level (no `parent_tool_use_id`), or under the
 * tool call `parentToolUseId` when given; undefined when it saved none there.
 */
export function latestExtensionState(
  entries: readonly SessionEntry[],
  extension: string,
  parentToolUseId?: string,
): ExtensionStateEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (
      entry.type === "extension_state" &&
      entry.extension === extension &&
      entry.parent_tool_use_id === parentToolUseId
    )
      return entry;
  }
  return undefined;
}

/** Every state saved under the tool call `parentToolUseId`, of any extension, in file order. */
export function extensionStatesOf(
  entries: readonly SessionEntry[],
  parentToolUseId: string,
): ExtensionStateEntry[] {
  return entries.filter(
    (entry): entry is ExtensionStateEntry =>
      entry.type === "extension_state" && entry.parent_tool_use_id === parentToolUseId,
  );
}
