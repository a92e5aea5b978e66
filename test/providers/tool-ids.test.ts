import { describe, expect, test } from "bun:test";
import { ANTHROPIC_TOOL_IDS, MISTRAL_TOOL_IDS, toolIdMap } from "../../src/providers/tool-ids.ts";
import type { Message } from "../../src/providers/types.ts";

function call(id: string): Message[] {
  return [
    { role: "assistant", content: [{ type: "tool_use", id, name: "bash", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok", is_error: false }] },
  ];
}

describe("toolIdMap", () => {
  test("accepted ids stay; others get a hash in the format, the same every time", () => {
    const history = [...call("Ab3dE6gH9"), ...call("call_abc"), ...call("toolu_01XYZ")];
    const id = toolIdMap(history, MISTRAL_TOOL_IDS);
    expect(id("Ab3dE6gH9")).toBe("Ab3dE6gH9");
    expect(id("call_abc")).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(id("call_abc")).not.toBe(id("toolu_01XYZ"));
    expect(toolIdMap(history, MISTRAL_TOOL_IDS)("call_abc")).toBe(id("call_abc"));
    // Without the rest of the history, too: the hash depends on the id alone.
    expect(toolIdMap([], MISTRAL_TOOL_IDS)("call_abc")).toBe(id("call_abc"));
  });

  test("a collision within one request: the later id is hashed again, the earlier keeps its id", () => {
    const hashed = toolIdMap([], MISTRAL_TOOL_IDS)("call_abc");
    // A native id equal to the hash of an earlier foreign id.
    const foreignFirst = toolIdMap([...call("call_abc"), ...call(hashed)], MISTRAL_TOOL_IDS);
    expect(foreignFirst("call_abc")).toBe(hashed);
    expect(foreignFirst(hashed)).not.toBe(hashed);
    expect(foreignFirst(hashed)).toMatch(/^[a-zA-Z0-9]{9}$/);
    // The other way round the native id keeps itself and the foreign one moves.
    const nativeFirst = toolIdMap([...call(hashed), ...call("call_abc")], MISTRAL_TOOL_IDS);
    expect(nativeFirst(hashed)).toBe(hashed);
    expect(nativeFirst("call_abc")).not.toBe(hashed);
  });

  test("Anthropic's format keeps call_ and Mistral ids, maps ids with other characters", () => {
    const id = toolIdMap([], ANTHROPIC_TOOL_IDS);
    expect(id("call_Xq1v8m2L")).toBe("call_Xq1v8m2L");
    expect(id("Ab3dE6gH9")).toBe("Ab3dE6gH9");
    expect(id("functions.read_file:0")).toMatch(/^[a-zA-Z0-9_-]{24}$/);
    expect(id("")).toMatch(/^[a-zA-Z0-9_-]{24}$/);
  });
});
