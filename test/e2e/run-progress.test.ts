/**
 * End to end: what `ion run -o text` says on stderr about tools when stderr is not a terminal. `-v`
 * adds the tool lines and each tool's result wherever stderr goes (a log, a CI job); without it a
 * pipe gets none. A denied call shows a short "denied" line while the model still gets its reason.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { transcript, useOpenAIServer } from "../support/e2e.ts";

const { server, env } = useOpenAIServer("sk-test-run-progress-unused");
const MODEL = ["-m", "openai/gpt-4o-mini"];

describe("ion run's tool lines on a piped stderr", () => {
  test("-v shows each tool call and its result; without -v a pipe gets none", async () => {
    using box = new Sandbox();
    for (const verbose of [true, false]) {
      server.enqueueReply("openai", {
        text: "Let me look.",
        toolCalls: [{ name: "bash", input: { command: "echo tool-said-this" } }],
      });
      server.enqueueReply("openai", { text: "It said so." });
      const run = await box.run(["run", ...MODEL, "-y", ...(verbose ? ["-v"] : []), "look"], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("It said so.\n");
      if (verbose) {
        expect(run.stderr).toContain("● bash  echo tool-said-this\n  ✓ ");
        expect(run.stderr).toContain("tool-said-this\n");
        expect(run.stderr).toMatch(/ · cost unknown · /);
      } else {
        expect(run.stderr).not.toContain("● bash");
        expect(run.stderr).not.toContain("tool-said-this");
      }
    }
  });

  test("a denied call's line says denied; the model is told why", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { toolCalls: [{ name: "bash", input: { command: "touch nope.txt" } }] });
    server.enqueueReply("openai", { text: "I was not allowed." });
    const from = server.requests.length;
    // Mode ask without a terminal: a write or execute call is denied at once.
    const run = await box.run(["run", ...MODEL, "-v", "make a file"], { env });
    expect(run.code).toBe(0);
    const lines = run.stderr.split("\n");
    expect(lines[lines.indexOf("● bash  touch nope.txt") + 1]).toBe("  ✗ denied");
    const told = transcript(server.requests[from + 1]!).at(-1);
    expect(told).toStartWith("tool: permission denied: bash was not run");
  });
});
