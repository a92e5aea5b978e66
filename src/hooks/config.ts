/**
 * Hook definitions in Claude Code's shape, `hooks.<Event>[] = {matcher, hooks: [{type: "command",
 * command, timeout}]}`, gathered from every source that applies (user config first, then a trusted
 * project's `.ion/config.json` and `.claude/settings.json`): all of them run, as in Claude Code.
 */

import { CLAUDE_TOOL_NAMES } from "../tools/claude-names.ts";
import { messageOf } from "../util/error-text.ts";

const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "PreCompact",
  "Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const DEFAULT_TIMEOUT_S = 60;

export interface HookCommand {
  /** The shell command; for a program's callback, a name for it (`callback <id>`). */
  command: string;
  timeoutMs: number;
  /** A Claude Agent SDK program's hook callback (answered over its control channel), not a command. */
  callbackId?: string;
}

export interface HookGroup {
  /** Undefined: every call (no matcher, `""` or `*`). */
  matcher: RegExp | undefined;
  commands: HookCommand[];
}

export type HookTable = Map<HookEvent, HookGroup[]>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A matcher as Claude Code reads it: a regex over the whole name (a plain name is one too). */
function compileMatcher(matcher: unknown, warn: (line: string) => void): RegExp | undefined | null {
  if (typeof matcher !== "string" || matcher === "" || matcher === "*") return undefined;
  try {
    return new RegExp(`^(?:${matcher})$`);
  } catch (err) {
    // "SyntaxError: Invalid regular expression: missing )" says the same thing three times.
    const why = messageOf(err).replace(/^Invalid regular expression: /, "");
    warn(`hook matcher ${JSON.stringify(matcher)} is not a valid regex: ${why}; its hooks never run`);
    return null;
  }
}

/**
 * A hook's `timeout`: seconds as a positive number, as in Claude Code. Anything else (`"1"`, `0`,
 * `-3`) is warned about, not silently replaced, and the hook gets the default.
 */
function timeoutSeconds(timeout: unknown, event: string, warn: (line: string) => void): number {
  if (timeout === undefined) return DEFAULT_TIMEOUT_S;
  if (typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0) return timeout;
  warn(
    `hooks.${event}: "timeout" must be a positive number of seconds, not ${JSON.stringify(timeout)}; the hook gets ${DEFAULT_TIMEOUT_S} s`,
  );
  return DEFAULT_TIMEOUT_S;
}

/** The hooks of every source, by event; unknown events and malformed entries are warned about and skipped. */
export function parseHooks(
  sources: readonly Record<string, unknown>[],
  warn: (line: string) => void,
  /** `{"type": "callback", "id": …}` hooks are taken too: an SDK program's, never a config file's. */
  callbacks = false,
): HookTable {
  const table: HookTable = new Map();
  for (const source of sources) {
    for (const [event, groups] of Object.entries(source)) {
      if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
        warn(`hooks: event "${event}" is not supported; its hooks never run`);
        continue;
      }
      for (const group of Array.isArray(groups) ? groups : [groups]) {
        if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
          warn(
            Array.isArray(groups)
              ? `hooks.${event}: an entry without a "hooks" list is skipped`
              : `hooks.${event} is not a list of entries; skipped`,
          );
          continue;
        }
        const matcher = compileMatcher(group.matcher, warn);
        if (matcher === null) continue;
        const commands = group.hooks.flatMap((hook): HookCommand[] => {
          if (isPlainObject(hook) && hook.type === "command" && typeof hook.command === "string") {
            const seconds = timeoutSeconds(hook.timeout, event, warn);
            return [{ command: hook.command, timeoutMs: seconds * 1000 }];
          }
          if (callbacks && isPlainObject(hook) && hook.type === "callback" && typeof hook.id === "string") {
            const seconds = timeoutSeconds(hook.timeout, event, warn);
            return [{ command: `callback ${hook.id}`, timeoutMs: seconds * 1000, callbackId: hook.id }];
          }
          warn(
            `hooks.${event}: only {"type": "command", "command": …} hooks run; skipped ${JSON.stringify(hook)}`,
          );
          return [];
        });
        if (commands.length > 0) {
          const list = table.get(event as HookEvent) ?? [];
          list.push({ matcher, commands });
          table.set(event as HookEvent, list);
        }
      }
    }
  }
  return table;
}

/**
 * The commands of an event that match a tool (by ion's name or Claude Code's), each command once
 * (the longest timeout of its duplicates).
 */
export function matchingCommands(table: HookTable, event: HookEvent, toolName?: string): HookCommand[] {
  const names = toolName === undefined ? [] : [toolName, CLAUDE_TOOL_NAMES[toolName] ?? toolName];
  const byCommand = new Map<string, HookCommand>();
  for (const group of table.get(event) ?? []) {
    if (group.matcher && toolName !== undefined && !names.some((name) => group.matcher?.test(name))) continue;
    for (const hook of group.commands) {
      const seen = byCommand.get(hook.command);
      if (!seen || seen.timeoutMs < hook.timeoutMs) byCommand.set(hook.command, hook);
    }
  }
  return [...byCommand.values()];
}
