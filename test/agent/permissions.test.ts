import { describe, expect, test } from "bun:test";
import { createApprover, offeredTools, permissionMode } from "../../src/agent/permissions.ts";
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

describe("approval", () => {
  const call = { id: "call_1", name: "bash", input: { command: "rm -rf build" } };

  test("with nobody to ask, every call is denied at once", async () => {
    expect(await createApprover(undefined)(call)).toBe("deny");
  });

  test("yes / no / always, with the question naming the tool and its command", async () => {
    const questions: string[] = [];
    const answers = ["y", "no", "maybe", "a"];
    let suspended = 0;
    const approve = createApprover({
      ask: async (question) => {
        questions.push(question);
        return answers.shift() ?? "";
      },
      beforeAsk: () => {
        suspended++;
      },
    });
    expect(await approve(call)).toBe("allow");
    expect(await approve(call)).toBe("deny");
    // "maybe" is asked again, then "a" allows this tool for the rest of the run without asking.
    expect(await approve(call)).toBe("allow");
    expect(await approve(call)).toBe("allow");
    expect(await approve({ ...call, input: { command: "ls" } })).toBe("allow");
    expect(questions).toHaveLength(4);
    expect(questions[0]).toBe("Allow bash: rm -rf build? [y]es / [n]o / [a]lways ");
    expect(suspended).toBe(3);
  });

  test("always is per tool; an empty answer (Ctrl+D) is no", async () => {
    const answers = ["always", ""];
    const approve = createApprover({ ask: async () => answers.shift() ?? "" });
    expect(await approve(call)).toBe("allow");
    expect(await approve({ id: "call_2", name: "write_file", input: { path: "a.txt", content: "x" } })).toBe(
      "deny",
    );
  });
});
