/**
 * End to end: when saving fails in the middle of a run (here the file-size limit makes the assistant
 * step's save fail with EFBIG), `-o json` and `-o stream-json` still end with their one result, which
 * says why, and the exit status is 1. What was saved before the failure still loads.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { collect, ionCommand, jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";

const KEY = "sk-test-save-failure-key-000000000000042";
const { server, env } = useOpenAIServer(KEY);

/** ~200 kB that zstd cannot shrink much: the assistant step's record alone exceeds the limit. */
const BIG_ANSWER = randomBytes(150_000).toString("base64");

/** Runs ion under bash with a 64 kB file-size limit; SIGXFSZ ignored, so writes past it fail with EFBIG. */
async function runLimited(box: Sandbox, args: string[]) {
  const quoted = [...ionCommand(), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const child = Bun.spawn(["bash", "-c", `trap '' XFSZ; ulimit -f 64; exec ${quoted}`], {
    cwd: box.workspace,
    env: box.env({ ...env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return collect(child);
}

describe("a save that fails mid-run", () => {
  for (const format of ["json", "stream-json"] as const) {
    test(`-o ${format} still ends with its result naming the failure`, async () => {
      using box = new Sandbox();
      server.enqueueReply("openai", { text: BIG_ANSWER, usage: { input: 10, output: 5 } });
      const run = await runLimited(box, ["run", "-m", "openai/gpt-4o-mini", "-o", format, "hello"]);
      expect(run.code).toBe(1);
      const result =
        format === "json"
          ? ResultSchema.parse(JSON.parse(run.stdout))
          : parseStreamJson(jsonLines(run.stdout)).result;
      expect(result).toMatchObject({ type: "result", subtype: "error_during_execution", is_error: true });
      const errors = (result as { errors: string[] }).errors;
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain("cannot save session");
      expect(run.stderr).toContain("cannot save session");
      expect(run.stderr).not.toContain("    at ");

      // The user's message was saved before the failure, and the file still loads.
      const show = await box.run(["sessions", "show", (result as { session_id: string }).session_id], {
        env,
      });
      expect(show.code).toBe(0);
      expect(show.stdout).toContain("hello");
    });
  }
});
