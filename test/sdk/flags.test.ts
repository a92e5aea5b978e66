import { describe, expect, test } from "bun:test";
import { fromClaudeArgs, isPrintMode } from "../../src/sdk/flags.ts";

describe("Claude Code's command line", () => {
  test("print mode: -p, --print, --output-format or --input-format", () => {
    expect(isPrintMode(["-p", "hi"])).toBe(true);
    expect(isPrintMode(["--output-format=stream-json"])).toBe(true);
    expect(isPrintMode(["--input-format", "stream-json"])).toBe(true);
    expect(isPrintMode(["-m", "openai/gpt-4o"])).toBe(false);
  });

  test("the SDK's command line: ignored flags dropped, the rest kept for ion run", () => {
    const { args, sdk } = fromClaudeArgs([
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--model=openai/gpt-4o",
      "--permission-prompt-tool=stdio",
      "--setting-sources=user,project",
      "--max-thinking-tokens=4000",
      "--thinking=adaptive",
      "--tools=Bash,Read",
      "--no-session-persistence",
      "--mcp-config",
      '{"mcpServers":{}}',
      "-p",
    ]);
    expect(args).toEqual([
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--model=openai/gpt-4o",
      "--no-session",
    ]);
    expect(sdk.permissionPromptStdio).toBe(true);
  });

  test("ion's own --thinking and --tools are left alone; Claude's disabled thinking is off", () => {
    expect(fromClaudeArgs(["--thinking", "low", "--no-tools", "hi"]).args).toEqual([
      "--thinking",
      "low",
      "--no-tools",
      "hi",
    ]);
    expect(fromClaudeArgs(["--thinking=disabled"]).args).toEqual(["--thinking", "off"]);
    expect(fromClaudeArgs(["--permission-prompt-tool", "mcp__x__y"]).sdk.permissionPromptStdio).toBe(false);
  });

  test("--mcp-config: its servers of type sdk are the program's in-process servers", () => {
    const config = {
      mcpServers: { calc: { type: "sdk", name: "calc" }, files: { command: "files-server" } },
    };
    const { args, sdk } = fromClaudeArgs([
      `--mcp-config=${JSON.stringify(config)}`,
      "--mcp-config",
      "servers.json",
    ]);
    expect(args).toEqual([]);
    expect(sdk.sdkMcpServers).toEqual(["calc"]);
  });
});
