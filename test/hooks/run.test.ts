/** One hook command run by itself: its output and exit code, and a hook that cannot start at all. */
import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runHook } from "../../src/hooks/run.ts";

const env = { PATH: process.env.PATH };

describe("runHook", () => {
  test("the payload on stdin, stdout, stderr and the exit code back", async () => {
    const run = await runHook({ command: "cat; echo oops >&2; exit 3", timeoutMs: 5000 }, '{"a":1}', {
      cwd: tmpdir(),
      env,
    });
    expect(run).toEqual({
      command: "cat; echo oops >&2; exit 3",
      code: 3,
      stdout: '{"a":1}',
      stderr: "oops\n",
      timedOut: false,
    });
  });

  test("a hook that cannot start (its cwd is gone) is a failed run, not a throw", async () => {
    const gone = join(tmpdir(), `ion-hook-gone-${process.pid}-${Date.now()}`);
    const run = await runHook({ command: "true", timeoutMs: 5000 }, "{}", { cwd: gone, env });
    expect(run.code).toBeNull();
    expect(run.timedOut).toBe(false);
    expect(run.stderr).toStartWith("could not start: ENOENT");
  });
});
