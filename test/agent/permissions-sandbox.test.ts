/**
 * A call that asks to run outside the sandbox (`bash` with `sandbox: false`): never preapproved, asked
 * every time in mode ask, and in mode auto run, asked or denied as the front end says.
 */
import { describe, expect, test } from "bun:test";
import { type ApprovalPolicy, authorizeCall, type PermissionMode } from "../../src/agent/permissions.ts";
import { parseToolRules } from "../../src/agent/tool-rules.ts";
import type { ApproveFn } from "../../src/tools/types.ts";
import { asksOutsideSandbox } from "../../src/tools/types.ts";
import { approvalQuestion, createApprover } from "../../src/ui/approval.ts";

const CALL = {
  id: "call_1",
  name: "bash",
  input: { command: "npm install -g x", sandbox: false },
  readOnly: false,
  outsideSandbox: true,
};

/** An approver that answers `answer` and records what it was asked. */
function recording(answer: "allow" | "deny") {
  const asked: Parameters<ApproveFn>[0][] = [];
  const approve: ApproveFn = async (call) => {
    asked.push(call);
    return answer;
  };
  return { asked, approve };
}

const policy = (mode: PermissionMode, extra: Partial<ApprovalPolicy> = {}): ApprovalPolicy => ({
  mode: () => mode,
  ...extra,
});

describe("escalation", () => {
  test("only bash with sandbox: false asks to leave the sandbox", () => {
    expect(asksOutsideSandbox("bash", { command: "x", sandbox: false })).toBe(true);
    expect(asksOutsideSandbox("bash", { command: "x", sandbox: true })).toBe(false);
    expect(asksOutsideSandbox("bash", { command: "x" })).toBe(false);
    expect(asksOutsideSandbox("write_file", { sandbox: false })).toBe(false);
  });

  test("mode ask: the user is asked, told it is outside the sandbox; yes runs it, no denies it", async () => {
    const yes = recording("allow");
    expect(await authorizeCall(policy("ask", { approve: yes.approve }), CALL)).toEqual({ allow: true });
    expect(yes.asked[0]?.outsideSandbox).toBe(true);
    const no = recording("deny");
    const denied = await authorizeCall(policy("ask", { approve: no.approve }), CALL);
    expect(denied).toMatchObject({ allow: false });
    expect(JSON.stringify(denied)).toContain("needs the user's approval");
  });

  test("mode ask: neither --allowedTools, acceptEdits nor a hook's allow lets it skip the question", async () => {
    const no = recording("deny");
    const verdict = await authorizeCall(
      policy("ask", {
        approve: no.approve,
        toolRules: parseToolRules(["Bash"], []),
        reviewers: [{ name: "hooks", review: async () => ({ decision: "allow" }) }],
      }),
      CALL,
    );
    expect(verdict.allow).toBe(false);
    expect(no.asked).toHaveLength(1);
  });

  test("a hook's deny still wins", async () => {
    const yes = recording("allow");
    const verdict = await authorizeCall(
      policy("ask", {
        approve: yes.approve,
        reviewers: [{ name: "hooks", review: async () => ({ decision: "deny", reason: "no" }) }],
      }),
      CALL,
    );
    expect(verdict).toEqual({ allow: false, reason: "no" });
    expect(yes.asked).toHaveLength(0);
  });

  test("mode auto: allow_escalation runs it; a run denies it; a chat asks", async () => {
    expect(await authorizeCall(policy("auto", { escalation: () => "allow" }), CALL)).toEqual({ allow: true });
    const denied = await authorizeCall(
      policy("auto", { escalation: () => "deny", approve: recording("allow").approve }),
      CALL,
    );
    expect(JSON.stringify(denied)).toContain("sandbox.allow_escalation: true");
    expect(await authorizeCall(policy("auto"), CALL)).toMatchObject({ allow: false });
    const chat = recording("allow");
    expect(
      await authorizeCall(policy("auto", { escalation: () => "ask", approve: chat.approve }), CALL),
    ).toEqual({
      allow: true,
    });
    expect(chat.asked).toHaveLength(1);
  });

  test("mode read: denied", async () => {
    expect(await authorizeCall(policy("read", { approve: recording("allow").approve }), CALL)).toMatchObject({
      allow: false,
    });
  });
});

describe("the terminal question", () => {
  test("says OUTSIDE the sandbox and offers no always; an earlier always for bash does not cover it", async () => {
    expect(approvalQuestion("bash", CALL.input, undefined, true)).toBe(
      "Allow bash OUTSIDE the sandbox: npm install -g x? [y]es / [n]o ",
    );
    const questions: string[] = [];
    const answers = ["a", "always", "n"];
    const approve = createApprover({
      ask: async (question) => {
        questions.push(question);
        return answers.shift() ?? "";
      },
    });
    // "always" for bash in the sandbox…
    expect(await approve({ id: "1", name: "bash", input: { command: "ls" } })).toBe("allow");
    // …is no answer to a call outside it: "always" is not taken, the question comes again, "n" denies.
    expect(await approve({ ...CALL, outsideSandbox: true })).toBe("deny");
    expect(questions).toHaveLength(3);
    expect(questions[1]).toContain("OUTSIDE the sandbox");
  });
});
