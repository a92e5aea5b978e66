/**
 * Claude Code's command line as the Claude Agent SDK writes it, in `ion run`'s terms. `ion -p …`,
 * `ion --output-format …` and `ion --input-format …` are Claude Code's print mode, i.e. `ion run`.
 * Flags that mean nothing to ion are dropped here (listed in the README), never a usage error: the
 * SDK passes them whatever the program asked for.
 */

/** Claude Code flags ion accepts and ignores: name → whether it takes a value. */
export const IGNORED_FLAGS: Readonly<Record<string, boolean>> = {
  print: false,
  "permission-prompt-tool": true,
  "permission-prompts": true,
  "setting-sources": true,
  settings: true,
  "strict-mcp-config": false,
  "mcp-config": true,
  "max-thinking-tokens": true,
  "thinking-display": true,
  effort: true,
  "allow-dangerously-skip-permissions": false,
  "include-hook-events": false,
  betas: true,
  agent: true,
  debug: false,
  "debug-file": true,
  "debug-to-stderr": false,
  "task-budget": true,
  "fork-session": false,
  "resume-session-at": true,
  "resume-drops-turn": true,
  "session-id": true,
  "initialize-fields": true,
  "managed-settings": true,
  "managed-settings-in-initialize": false,
  "await-initialize": false,
  "plugin-dir": true,
  "plugin-dir-no-mcp": true,
  "project-config-root": true,
  channels: true,
  "session-mirror": false,
};

/** Whether `ion …` with no subcommand is Claude Code's print mode (so `ion run`). */
export function isPrintMode(argv: readonly string[]): boolean {
  return argv.some(
    (arg) =>
      arg === "-p" ||
      arg === "--print" ||
      arg === "--output-format" ||
      arg.startsWith("--output-format=") ||
      arg === "--input-format" ||
      arg.startsWith("--input-format="),
  );
}

/** What the SDK's flags ask of ion beyond `ion run`'s own flags. */
export interface SdkFlags {
  /** `--permission-prompt-tool stdio`: the program answers approval questions (can_use_tool). */
  permissionPromptStdio: boolean;
  /** `--mcp-config`'s servers of `type: "sdk"`: the program's in-process servers, by name. */
  sdkMcpServers: string[];
}

/** The names of the `type: "sdk"` servers in an `--mcp-config` JSON value (a file path names none). */
function sdkServerNames(value: string | undefined): string[] {
  if (value === undefined || !value.trimStart().startsWith("{")) return [];
  try {
    const servers = (JSON.parse(value) as { mcpServers?: unknown }).mcpServers;
    if (typeof servers !== "object" || servers === null) return [];
    return Object.entries(servers as Record<string, { type?: unknown }>).flatMap(([name, server]) =>
      server?.type === "sdk" ? [name] : [],
    );
  } catch {
    // Not JSON: Claude Code would read it as a file of stdio/http servers, which ion does not take here.
    return [];
  }
}

/**
 * `ion run`'s arguments with Claude Code's extra flags taken out: the ignored ones dropped,
 * `--no-session-persistence` as `--no-session`, Claude Code's `--thinking adaptive|disabled` and
 * `--tools=LIST|default` (not ion's flags of the same names; the SDK always writes `--flag=value`)
 * dropped or mapped.
 */
export function fromClaudeArgs(rawArgs: readonly string[]): { args: string[]; sdk: SdkFlags } {
  const args: string[] = [];
  const sdk: SdkFlags = { permissionPromptStdio: false, sdkMcpServers: [] };
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      args.push(...rawArgs.slice(i));
      break;
    }
    if (arg === "-p") continue;
    if (!arg.startsWith("--")) {
      args.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const takesValue = IGNORED_FLAGS[name];
    const flagValue = (): string | undefined => (eq >= 0 ? arg.slice(eq + 1) : rawArgs[i + 1]);
    if (takesValue !== undefined) {
      if (name === "permission-prompt-tool") sdk.permissionPromptStdio = flagValue() === "stdio";
      if (name === "mcp-config") sdk.sdkMcpServers.push(...sdkServerNames(flagValue()));
      if (takesValue && eq < 0) i++;
      continue;
    }
    if (name === "no-session-persistence") {
      args.push("--no-session");
      continue;
    }
    if (name === "thinking" || name === "tools") {
      const value = flagValue() ?? "";
      const claudeOnly =
        name === "thinking"
          ? ["adaptive", "disabled", "enabled"].includes(value)
          : eq >= 0 && value !== "true" && value !== "false";
      if (claudeOnly) {
        if (eq < 0) i++;
        if (name === "thinking" && value === "disabled") args.push("--thinking", "off");
        continue;
      }
    }
    args.push(arg);
  }
  return { args, sdk };
}
