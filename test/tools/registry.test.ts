import { describe, expect, test } from "bun:test";
import { currentTools, ToolRegistry } from "../../src/tools/registry.ts";
import { type AgentTool, isReadOnly } from "../../src/tools/types.ts";

function tool(name: string, extra: Partial<AgentTool> = {}): AgentTool {
  return {
    spec: { name, description: `the ${name} tool`, input_schema: { type: "object" } },
    readOnly: true,
    execute: async () => ({ content: name, is_error: false }),
    ...extra,
  };
}

const names = (tools: readonly AgentTool[]) => tools.map((t) => t.spec.name);

describe("ToolRegistry", () => {
  test("offers its tools in registration order; added and removed tools change the next list", async () => {
    const registry = new ToolRegistry([tool("read_file"), tool("bash")]);
    expect(names(registry.offered())).toEqual(["read_file", "bash"]);
    registry.add(tool("symbols"));
    expect(names(registry.offered())).toEqual(["read_file", "bash", "symbols"]);
    expect(await registry.remove("bash")).toBe(true);
    expect(await registry.remove("bash")).toBe(false);
    expect(names(registry.offered())).toEqual(["read_file", "symbols"]);
    expect(registry.get("symbols")?.spec.name).toBe("symbols");
  });

  test("two tools of one name are refused", () => {
    const registry = new ToolRegistry([tool("grep")]);
    expect(() => registry.add(tool("grep"))).toThrow("a tool named grep is already registered");
  });

  test("a deferred tool is listed by name and description, offered only once activated", () => {
    const registry = new ToolRegistry([tool("read_file")]);
    registry.add(tool("mcp__db__query"), { deferred: true });
    expect(names(registry.offered())).toEqual(["read_file"]);
    expect(registry.deferred()).toEqual([{ name: "mcp__db__query", description: "the mcp__db__query tool" }]);
    expect(registry.get("mcp__db__query")).toBeDefined();
    expect(registry.activate("mcp__db__query")).toBe(true);
    expect(names(registry.offered())).toEqual(["read_file", "mcp__db__query"]);
    expect(registry.deferred()).toEqual([]);
    expect(registry.activate("nothing")).toBe(false);
  });

  test("remove closes the tool it removes", async () => {
    const closed: string[] = [];
    const registry = new ToolRegistry([tool("db", { close: async () => void closed.push("db") })]);
    await registry.remove("db");
    expect(closed).toEqual(["db"]);
  });

  test("close closes every tool once, reports the closes that failed, and takes no tools after", async () => {
    const closed: string[] = [];
    const registry = new ToolRegistry([
      tool("a", { close: async () => void closed.push("a") }),
      tool("plain"),
      tool("broken", {
        close: async () => {
          throw new Error("server gone");
        },
      }),
    ]);
    registry.add(tool("late", { close: async () => void closed.push("late") }), { deferred: true });
    const failures = await registry.close();
    expect(closed.sort()).toEqual(["a", "late"]);
    expect(failures.map((f) => [f.name, (f.error as Error).message])).toEqual([["broken", "server gone"]]);
    expect(await registry.close()).toEqual([]);
    expect(closed).toHaveLength(2);
    expect(registry.offered()).toEqual([]);
    expect(() => registry.add(tool("after"))).toThrow("its session is closed");
  });

  test("currentTools takes a fixed list or asks a function each time", () => {
    const registry = new ToolRegistry([tool("a")]);
    const source = () => registry.offered();
    expect(names(currentTools([tool("x")]))).toEqual(["x"]);
    expect(names(currentTools(source))).toEqual(["a"]);
    registry.add(tool("b"));
    expect(names(currentTools(source))).toEqual(["a", "b"]);
  });
});

describe("isReadOnly", () => {
  test("a fixed answer, or the tool's rule applied to this call's input", () => {
    const lister = tool("run", { readOnly: (input) => input.command === "ls" });
    expect(isReadOnly(tool("r"), {})).toBe(true);
    expect(isReadOnly(tool("w", { readOnly: false }), {})).toBe(false);
    expect(isReadOnly(lister, { command: "ls" })).toBe(true);
    expect(isReadOnly(lister, { command: "rm -rf x" })).toBe(false);
  });

  test("a rule that throws on the input counts as not read-only", () => {
    const picky = tool("q", {
      readOnly: (input) => {
        if (typeof input.sql !== "string") throw new TypeError("sql must be a string");
        return input.sql.startsWith("select");
      },
    });
    expect(isReadOnly(picky, { sql: 3 })).toBe(false);
    expect(isReadOnly(picky, { sql: "select 1" })).toBe(true);
  });
});
