/** Hook definitions read from config: a bad `timeout` is warned about, not silently replaced. */
import { describe, expect, test } from "bun:test";
import { matchingCommands, parseHooks } from "../../src/hooks/config.ts";

function parseWithTimeout(timeout: unknown): { timeoutMs: number | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const table = parseHooks(
    [{ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh", timeout }] }] }],
    (line) => warnings.push(line),
  );
  return { timeoutMs: matchingCommands(table, "PreToolUse", "bash")[0]?.timeoutMs, warnings };
}

describe("parseHooks timeout", () => {
  test("a positive number is seconds; none is the default 60 s, without a warning", () => {
    expect(parseWithTimeout(10)).toEqual({ timeoutMs: 10_000, warnings: [] });
    expect(parseWithTimeout(0.5)).toEqual({ timeoutMs: 500, warnings: [] });
    expect(parseWithTimeout(undefined)).toEqual({ timeoutMs: 60_000, warnings: [] });
  });

  test.each([["abc"], [0], [-3], ["1"], [null]])(
    "%p warns once naming the event and the field; the hook keeps 60 s",
    (timeout) => {
      const { timeoutMs, warnings } = parseWithTimeout(timeout);
      expect(timeoutMs).toBe(60_000);
      expect(warnings).toEqual([
        `hooks.PreToolUse: "timeout" must be a positive number of seconds, not ${JSON.stringify(timeout)}; the hook gets 60 s`,
      ]);
    },
  );
});
