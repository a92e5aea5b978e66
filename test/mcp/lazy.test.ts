/**
 * Lazy loading and naming with many tools: the tests' own stdio server (SDK server API) lists 220
 * (and 3) numbered tools plus names that need sanitising, clash, or run past 64 characters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateTokens } from "../../src/agent/tokens.ts";
import { planMcpTools } from "../../src/mcp/lazy.ts";
import { type McpServers, startMcpServers } from "../../src/mcp/servers.ts";
import type { McpTool } from "../../src/mcp/tool.ts";
import { bunServer, MANY_TOOLS_SERVER, toolContext, toolNamed } from "./support.ts";

const base = mkdtempSync(join(tmpdir(), "ion-mcp-lazy-"));
let servers: McpServers;

beforeAll(async () => {
  servers = await startMcpServers(
    [bunServer("many", [MANY_TOOLS_SERVER]), bunServer("many.too", [MANY_TOOLS_SERVER], { TOOL_COUNT: "3" })],
    { logFile: (server) => join(base, `${server}.log`) },
  );
});

afterAll(async () => {
  await servers.close();
  rmSync(base, { recursive: true, force: true });
});

describe("many tools", () => {
  test("every tool gets a valid, unique name of at most 64 characters", () => {
    expect(servers.statuses.map((s) => s.status)).toEqual(["connected", "connected"]);
    const names = servers.tools.map((tool) => tool.spec.name);
    expect(names).toHaveLength(224 + 7);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names).toContain("mcp__many__tool_000");
    expect(names).toContain("mcp__many__tool_219");
    // "weird.name" and "weird_name" clash after sanitising, on each server: each gets a hash.
    const weird = names.filter((name) => /^mcp__many(_too)?__weird_name_[0-9a-f]{8}$/.test(name));
    expect(weird).toHaveLength(4);
    // Server "many.too" sanitises to "many_too": its tools keep their own names.
    expect(toolNamed(servers, "mcp__many_too__tool_000").server).toBe("many.too");
  });

  test("a hashed name still calls the tool by its own name on its server", async () => {
    const tool = servers.tools.find((t) => t.server === "many.too" && t.mcpName === "weird.name") as McpTool;
    expect(tool.spec.name).toMatch(/^mcp__many_too__weird_name_[0-9a-f]{8}$/);
    expect(await tool.execute({}, toolContext())).toEqual({
      content: "called weird.name with {}",
      is_error: false,
    });
    const long = servers.tools.find((t) => t.server === "many" && t.mcpName.endsWith("_two")) as McpTool;
    expect(long.spec.name).toHaveLength(64);
    expect((await long.execute({}, toolContext())).content).toBe(`called ${long.mcpName} with {}`);
  });
});

describe("lazy loading", () => {
  test("schemas under 10 % of the window are all listed", () => {
    const few = servers.tools.filter((tool) => tool.server === "many.too");
    const plan = planMcpTools(few, 200_000);
    expect(plan.listed).toEqual(few);
    expect(plan.deferred).toEqual([]);
    expect(plan.tokensSaved).toBe(0);
    expect(plan.schemaTokens).toBe(
      estimateTokens(
        [],
        "",
        few.map((tool) => tool.spec),
      ),
    );
  });

  test("over 10 % of the window: only mcp_search is listed, with the tokens saved", () => {
    const plan = planMcpTools(servers.tools, 200_000);
    expect(plan.schemaTokens).toBeGreaterThan(20_000);
    expect(plan.listed.map((tool) => tool.spec.name)).toEqual(["mcp_search"]);
    expect(plan.deferred).toHaveLength(servers.tools.length);
    const searchTokens = estimateTokens([], "", [
      plan.listed[0]?.spec ?? { name: "", description: "", input_schema: {} },
    ]);
    expect(plan.tokensSaved).toBe(plan.schemaTokens - searchTokens);
    expect(plan.listed[0]?.readOnly).toBe(true);
    expect(plan.listed[0]?.spec.description).toContain("231 tools from many (224), many.too (7)");
  });

  test("mcp_search returns the matching tools' full schemas; a found tool is called by name", async () => {
    const found: string[] = [];
    const plan = planMcpTools(servers.tools, 200_000, {
      onFound: (tools) => found.push(...tools.map((t) => t.spec.name)),
    });
    const search = plan.listed[0];
    if (!search) throw new Error("no mcp_search");
    const outcome = await search.execute({ query: "invoice totals", max_results: 3 }, toolContext());
    expect(outcome.is_error).toBe(false);
    const blocks = outcome.content.split("\n\n");
    expect(blocks[0]).toBe("3 matching tools; call any of them by its name:");
    for (const block of blocks.slice(1)) {
      expect(block).toContain("Handles invoice totals requests");
      const schema = JSON.parse(block.slice(block.indexOf("input schema: ") + "input schema: ".length));
      expect(schema).toMatchObject({ type: "object", required: ["query"] });
    }
    expect(found).toHaveLength(3);
    const name = found[0] ?? "";
    const tool = plan.deferred.find((t) => t.spec.name === name);
    expect(await tool?.execute({ query: "march" }, toolContext())).toEqual({
      content: `called ${tool?.mcpName} with {"query":"march"}`,
      is_error: false,
    });
  });

  test("mcp_search by exact name, select:, no match and bad input", async () => {
    const search = planMcpTools(servers.tools, 1_000).listed[0];
    if (!search) throw new Error("no mcp_search");
    const exact = await search.execute({ query: "mcp__many__tool_042" }, toolContext());
    expect(exact.content.split("\n\n")[1]).toStartWith('mcp__many__tool_042 (server "many", read-only)');
    const selected = await search.execute({ query: "select:mcp__many__tool_001,tool_002" }, toolContext());
    expect(
      selected.content
        .split("\n\n")
        .slice(1)
        .map((block) => block.split(" ")[0]),
    ).toEqual(["mcp__many__tool_001", "mcp__many__tool_002", "mcp__many_too__tool_002"]);
    const none = await search.execute({ query: "zzzqqqvvv" }, toolContext());
    expect(none).toEqual({
      content:
        'No MCP tool matches "zzzqqqvvv". Servers and their tool counts: many (224), many.too (7). Try other keywords.',
      is_error: false,
    });
    expect((await search.execute({ query: "" }, toolContext())).is_error).toBe(true);
    expect((await search.execute({ query: "x", max_results: 0 }, toolContext())).is_error).toBe(true);
  });
});
