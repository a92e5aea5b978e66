import { describe, expect, test } from "bun:test";
import { createApprover } from "../../src/ui/approval.ts";

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
