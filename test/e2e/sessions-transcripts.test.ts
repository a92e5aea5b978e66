/**
 * End to end: transcripts of a run that used bash — `ion sessions show` and `export` print its output
 * as the lines it was (export: fenced blocks) instead of one line of JSON with `\n` in it, `show --json`
 * keeps the saved text exactly — and `ion sessions show ID --last` prints only the last answer.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";

const KEY = "sk-test-sessions-transcripts-00000000099";
const { server, env } = useOpenAIServer(KEY);
const MODEL = "openai/gpt-4o-mini";
const COMMAND = "printf 'alpha\\nbeta\\n'; echo oops >&2; exit 3";
const ANSWER = "The command printed alpha and beta,\nthen failed with exit 3.";

/** A run whose model calls bash once, then answers; returns the session id. */
async function bashRun(box: Sandbox): Promise<string> {
  server.enqueueReply("openai", {
    text: "Running it.",
    toolCalls: [{ id: "call_bash_tx1", name: "bash", input: { command: COMMAND } }],
  });
  server.enqueueReply("openai", { text: ANSWER });
  const run = await box.run(["run", "-m", MODEL, "-y", "-o", "json", "run the script"], { env });
  expect(run.code).toBe(0);
  return ResultSchema.parse(JSON.parse(run.stdout)).session_id;
}

const Saved = z.object({
  entries: z.array(
    z.object({
      type: z.string(),
      message: z.optional(
        z.object({ content: z.array(z.object({ type: z.string(), content: z.optional(z.string()) })) }),
      ),
    }),
  ),
});

describe("transcripts show bash output as its lines", () => {
  test("show: stdout and stderr as indented lines under the exit code; --json keeps the saved JSON", async () => {
    using box = new Sandbox();
    const id = await bashRun(box);
    const shown = await box.run(["sessions", "show", id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain(`"stdout"`);
    expect(shown.stdout).toContain(`● bash ${COMMAND}\n`);
    expect(shown.stdout).toContain(
      [
        "✗ error from bash · exit 3",
        "    stdout:",
        "    alpha",
        "    beta",
        "    stderr:",
        "    oops",
        "",
      ].join("\n"),
    );

    const json = await box.run(["sessions", "show", id, "--json"], { env });
    const results = Saved.parse(JSON.parse(json.stdout)).entries.flatMap((e) =>
      (e.message?.content ?? []).filter((b) => b.type === "tool_result"),
    );
    expect(results).toHaveLength(1);
    expect(JSON.parse(results[0]!.content!)).toEqual({
      stdout: "alpha\nbeta\n",
      stderr: "oops\n",
      exit_code: 3,
    });
  });

  test("export: the command in a sh block, stdout and stderr each in a fenced block", async () => {
    using box = new Sandbox();
    const id = await bashRun(box);
    const exported = await box.run(["sessions", "export", id], { env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`**Tool call:** \`bash\`\n\n\`\`\`sh\n${COMMAND}\n\`\`\`\n`);
    expect(exported.stdout).toContain(
      "**Tool error:** `bash` · exit 3\n\nstdout:\n\n```\nalpha\nbeta\n```\n\nstderr:\n\n```\noops\n```\n",
    );
    expect(exported.stdout).not.toContain('"stdout"');
  });
});

describe("ion sessions show --last", () => {
  test("prints only the final answer, exactly, for a script", async () => {
    using box = new Sandbox();
    const id = await bashRun(box);
    const last = await box.run(["sessions", "show", id.slice(0, 20), "--last"], { env });
    expect(last.code).toBe(0);
    expect(last.stdout).toBe(`${ANSWER}\n`);
    expect(last.stderr).toBe("");
  });

  test("with --json it is a usage error; a session without an answer says so", async () => {
    using box = new Sandbox();
    const both = await box.run(["sessions", "show", "x", "--last", "--json"], { env });
    expect(both.code).toBe(64);
    expect(both.stderr).toContain("--last and --json cannot be used together");

    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "true" } }],
    });
    const run = await box.run(["run", "-m", MODEL, "-y", "--max-turns", "1", "-o", "json", "go"], { env });
    const id = ResultSchema.parse(JSON.parse(run.stdout)).session_id;
    const none = await box.run(["sessions", "show", id, "--last"], { env });
    expect(none.code).toBe(64);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain(`session ${id} has no answer yet`);
  });
});
