import { describe, expect, test } from "bun:test";
import { assignToolNames, MAX_TOOL_NAME, plainToolName } from "../../src/mcp/names.ts";

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe("MCP tool names", () => {
  test("mcp__<server>__<tool>, each part sanitised to [A-Za-z0-9_-]", () => {
    expect(plainToolName("files", "read_file")).toBe("mcp__files__read_file");
    expect(plainToolName("my.server", "get-sum")).toBe("mcp__my_server__get-sum");
    expect(plainToolName("ünï cødé", "a/b c")).toBe("mcp___n__c_d___a_b_c");
  });

  test("unique names that fit are kept as they are", () => {
    expect(
      assignToolNames([
        { server: "a", tool: "x" },
        { server: "b", tool: "x" },
      ]),
    ).toEqual(["mcp__a__x", "mcp__b__x"]);
  });

  test("names that clash after sanitising are all given a hash of their original names", () => {
    const names = assignToolNames([
      { server: "s", tool: "weird.name" },
      { server: "s", tool: "weird_name" },
      { server: "s", tool: "plain" },
    ]);
    expect(names[2]).toBe("mcp__s__plain");
    expect(names[0]).toMatch(/^mcp__s__weird_name_[0-9a-f]{8}$/);
    expect(names[1]).toMatch(/^mcp__s__weird_name_[0-9a-f]{8}$/);
    expect(names[0]).not.toBe(names[1]);
  });

  test("a name over 64 characters is cut and hashed; long names sharing a prefix stay distinct", () => {
    const long = "x".repeat(80);
    const names = assignToolNames([
      { server: "server", tool: `${long}_one` },
      { server: "server", tool: `${long}_two` },
    ]);
    for (const name of names) {
      expect(name).toMatch(VALID);
      expect(name.length).toBe(MAX_TOOL_NAME);
      expect(name).toStartWith("mcp__server__xxx");
    }
    expect(new Set(names).size).toBe(2);
  });

  test("the names do not depend on the order servers answered in", () => {
    const keys = [
      { server: "a.b", tool: "t" },
      { server: "a_b", tool: "t" },
      { server: "c", tool: "y".repeat(70) },
      { server: "d", tool: "z" },
    ];
    const forward = assignToolNames(keys);
    const backward = assignToolNames([...keys].reverse()).reverse();
    expect(backward).toEqual(forward);
  });
});
