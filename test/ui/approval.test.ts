import { describe, expect, test } from "bun:test";
import { approvalQuestion, createApprover } from "../../src/ui/approval.ts";

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
      ask: async (question: string) => {
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

describe("the approval question never lies", () => {
  const CHOICES = "? [y]es / [n]o / [a]lways ";

  test("a long one-line command is shown whole, not cut", () => {
    const command = `echo ${"a".repeat(280)}; echo PWNED > f`;
    expect(approvalQuestion("bash", { command })).toBe(`Allow bash: ${command}${CHOICES}`);
  });

  test("control characters are written out, never sent as themselves", () => {
    const command = "touch pwned \x1b[2K\x1b[1Gecho harmless\rls\x07";
    expect(approvalQuestion("bash", { command })).toBe(
      `Allow bash: touch pwned \\x1b[2K\\x1b[1Gecho harmless\\rls\\x07${CHOICES}`,
    );
    expect(approvalQuestion("bash\x1b[2K", { command: "ls" })).toBe(`Allow bash\\x1b[2K: ls${CHOICES}`);
  });

  test("a multi-line command is shown line by line before the question, which points to it", () => {
    const shown: string[] = [];
    const command = "cd build\nrm -rf *\x1b[1A\necho done";
    expect(approvalQuestion("bash", { command }, (text) => shown.push(text))).toBe(
      `Allow bash (the 3 lines above)${CHOICES}`,
    );
    expect(shown).toEqual(["cd build\nrm -rf *\\x1b[1A\necho done"]);
    // With nowhere to show it, the lines stay in the question, each newline written out.
    expect(approvalQuestion("bash", { command })).toBe(
      `Allow bash: cd build\\nrm -rf *\\x1b[1A\\necho done${CHOICES}`,
    );
  });

  test("a tool without a command or path shows its whole input", () => {
    expect(approvalQuestion("mcp_tool", { query: "x\u009b2J" })).toBe(
      `Allow mcp_tool: {"query":"x\\x9b2J"}${CHOICES}`,
    );
  });
});

describe("an MCP tool's approval shows its whole input", () => {
  test("every key, one a line before the question, not only the path", () => {
    const shown: string[] = [];
    const input = { path: "/w/x.txt", content: "line 1\nrm -rf ~ \x1b[2K" };
    expect(approvalQuestion("mcp__files__write_file", input, (text) => shown.push(text))).toBe(
      "Allow mcp__files__write_file (the 4 lines above)? [y]es / [n]o / [a]lways ",
    );
    expect(shown).toEqual(['{\n  "path": "/w/x.txt",\n  "content": "line 1\\nrm -rf ~ \\u001b[2K"\n}']);
  });

  test("a long string value is cut, saying how much was left out", () => {
    const shown: string[] = [];
    approvalQuestion(
      "mcp__files__write_file",
      { path: "a", content: `${"x".repeat(2000)}TAIL${"y".repeat(996)}` },
      (text) => shown.push(text),
    );
    expect(shown[0]).toContain(`"content": "${"x".repeat(2000)}… (1000 more characters not shown)"`);
    expect(shown[0]).not.toContain("TAIL");
  });
});
