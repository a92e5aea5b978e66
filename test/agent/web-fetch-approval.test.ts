import { describe, expect, test } from "bun:test";
import {
  type ApprovalPolicy,
  authorizeCall,
  offeredTools,
  type PermissionMode,
} from "../../src/agent/permissions.ts";
import { childTools } from "../../src/subagents/child-run.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { isReadOnly } from "../../src/tools/types.ts";
import { createApprover } from "../../src/ui/approval.ts";

/** A web_fetch call as the agent loop hands it to the approval decision. */
function fetchCall(url: string, id = "call_1") {
  const tool = builtinTools().find((t) => t.spec.name === "web_fetch");
  if (!tool) throw new Error("web_fetch is not a built-in tool");
  const input = { url };
  return { id, name: "web_fetch", input, readOnly: isReadOnly(tool, input) };
}

/** The approval path of a session in `mode`, its questions recorded and answered from `answers`. */
function policyWith(mode: PermissionMode, answers: string[]) {
  const questions: string[] = [];
  const policy: ApprovalPolicy = {
    mode: () => mode,
    approve: createApprover({
      ask: async (question) => {
        questions.push(question);
        return answers.shift() ?? "";
      },
    }),
  };
  return { policy, questions };
}

describe("web_fetch approval", () => {
  test("web_fetch reaches the network, so it is not read-only", () => {
    expect(fetchCall("https://example.com/").readOnly).toBe(false);
  });

  test("mode ask asks per domain, naming it; always covers that domain only, for the session", async () => {
    const { policy, questions } = policyWith("ask", ["y", "a", "n"]);
    // "y" allows this one call: the next call to the same domain asks again.
    expect(await authorizeCall(policy, fetchCall("https://docs.example.com/a"))).toEqual({ allow: true });
    expect(questions[0]).toBe(
      "Allow web_fetch (domain docs.example.com): https://docs.example.com/a? [y]es / [n]o / [a]lways for docs.example.com ",
    );
    // "a" covers docs.example.com for the rest of the session: no more questions about it.
    expect(await authorizeCall(policy, fetchCall("https://docs.example.com/b"))).toEqual({ allow: true });
    expect(await authorizeCall(policy, fetchCall("http://docs.example.com/c?q=1"))).toEqual({ allow: true });
    expect(questions).toHaveLength(2);
    // Another domain is asked about again, and "n" denies it.
    const denied = await authorizeCall(policy, fetchCall("https://other.example.org/"));
    expect(denied.allow).toBe(false);
    expect(questions).toHaveLength(3);
    expect(questions[2]).toContain("(domain other.example.org)");
  });

  test("always for web_fetch does not allow other tools, nor the other way round", async () => {
    const { policy, questions } = policyWith("ask", ["a", "a", "n"]);
    expect((await authorizeCall(policy, { ...fetchCall("https://a.test/"), id: "c1" })).allow).toBe(true);
    const bash = { id: "c2", name: "bash", input: { command: "make" }, readOnly: false };
    expect((await authorizeCall(policy, bash)).allow).toBe(true);
    expect((await authorizeCall(policy, fetchCall("https://b.test/"))).allow).toBe(false);
    expect(questions).toHaveLength(3);
  });

  test("-y (mode auto) allows every domain without a question", async () => {
    const { policy, questions } = policyWith("auto", []);
    expect(await authorizeCall(policy, fetchCall("https://a.test/"))).toEqual({ allow: true });
    expect(await authorizeCall(policy, fetchCall("https://b.test/"))).toEqual({ allow: true });
    expect(questions).toHaveLength(0);
  });

  test("mode read does not offer web_fetch, and refuses a call that names it anyway", async () => {
    const names = (mode: PermissionMode) => offeredTools(builtinTools(), mode).map((t) => t.spec.name);
    expect(names("ask")).toContain("web_fetch");
    expect(names("auto")).toContain("web_fetch");
    expect(names("read")).not.toContain("web_fetch");
    const { policy, questions } = policyWith("read", ["y"]);
    expect((await authorizeCall(policy, fetchCall("https://a.test/"))).allow).toBe(false);
    expect(questions).toHaveLength(0);
  });

  test("a headless run (nobody to ask) is denied at once", async () => {
    const policy: ApprovalPolicy = { mode: () => "ask", approve: createApprover(undefined) };
    expect((await authorizeCall(policy, fetchCall("https://a.test/"))).allow).toBe(false);
  });
});

describe("the researcher subagent", () => {
  test("gets the read-only tools and web_fetch, nothing else", () => {
    const parent = builtinTools();
    expect(childTools("researcher", parent).map((t) => t.spec.name)).toEqual([
      "read_file",
      "list_files",
      "glob",
      "grep",
      "symbols",
      "web_fetch",
    ]);
    // The other read-only types do not get web_fetch.
    expect(childTools("explorer", parent).map((t) => t.spec.name)).not.toContain("web_fetch");
  });
});
