/** Malformed hook definitions: each warning is one clause in the words of the config. */
import { describe, expect, test } from "bun:test";
import { parseHooks } from "../../src/hooks/config.ts";

describe("malformed hooks are told in one clean clause", () => {
  const warningsOf = (source: Record<string, unknown>): string[] => {
    const warnings: string[] = [];
    parseHooks([source], (line) => warnings.push(line));
    return warnings;
  };

  test("a matcher that is not a regex: the engine's reason once, without its error name", () => {
    expect(
      warningsOf({ PreToolUse: [{ matcher: "(Bash", hooks: [{ type: "command", command: "x" }] }] }),
    ).toEqual(['hook matcher "(Bash" is not a valid regex: missing ); its hooks never run']);
  });

  test("an event that is not a list says so; a list entry without hooks says that", () => {
    expect(warningsOf({ PostToolUse: {} })).toEqual(["hooks.PostToolUse is not a list of entries; skipped"]);
    expect(warningsOf({ PostToolUse: [{ matcher: "Bash" }] })).toEqual([
      'hooks.PostToolUse: an entry without a "hooks" list is skipped',
    ]);
  });
});
