import { describe, expect, test } from "bun:test";
import { createAuthorizer, offeredTools, permissionMode } from "../../src/agent/permissions.ts";
import type { AgentTool } from "../../src/tools/types.ts";

function tool(name: string, readOnly: boolean): AgentTool {
  return {
    spec: { name, description: name, input_schema: { type: "object" } },
    readOnly,
    execute: async () => ({ content: "ran", is_error: false }),
  };
}

const TOOLS = [tool("read_file", true), tool("grep", true), tool("write_file", false), tool("bash", false)];
const names = (tools: AgentTool[]) => tools.map((t) => t.spec.name);

describe("permission mode", () => {
  test("-y means auto whatever the config says; otherwise config, else ask", () => {
    expect(permissionMode(true, "read")).toBe("auto");
    expect(permissionMode(false, "read")).toBe("read");
    expect(permissionMode(false, undefined)).toBe("ask");
  });

  test("read offers only read-only tools; disabled tools are never offered", () => {
    expect(names(offeredTools(TOOLS, "read"))).toEqual(["read_file", "grep"]);
    expect(names(offeredTools(TOOLS, "ask", ["bash", "grep"]))).toEqual(["read_file", "write_file"]);
    expect(names(offeredTools(TOOLS, "auto"))).toEqual(["read_file", "grep", "write_file", "bash"]);
  });
});

describe("authorize", () => {
  const call = { id: "call_1", name: "bash", input: { command: "ls" }, readOnly: false };

  test("read-only calls run in every mode; auto runs everything; read denies the rest", async () => {
    expect(await createAuthorizer(() => "read")({ ...call, readOnly: true })).toEqual({ allow: true });
    expect(await createAuthorizer(() => "auto")(call)).toEqual({ allow: true });
    const denied = await createAuthorizer(() => "read")(call);
    expect(denied.allow).toBe(false);
    if (!denied.allow) expect(denied.reason).toContain("the permission mode is read");
  });

  test("ask follows the approver and reads the mode per call (a chat can change it)", async () => {
    let mode: "ask" | "auto" = "ask";
    const authorize = createAuthorizer(
      () => mode,
      async () => "deny",
    );
    const first = await authorize(call);
    expect(first.allow).toBe(false);
    if (!first.allow) expect(first.reason).toContain("need the user's approval");
    mode = "auto";
    expect(await authorize(call)).toEqual({ allow: true });
  });
});
