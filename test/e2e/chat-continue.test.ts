/**
 * End to end: `ion -c` / `ion chat -c` continue this directory's latest session, as `ion run -c` does;
 * and `ion run -c` while that chat holds the session is refused, naming the chat and its pid, with a
 * `session_id` in its JSON that names a session that exists.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { transcript, useOpenAIServer } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("chat-continue: tmux is not installed; the terminal test is skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-chat-continue-000000000000042");
const MODEL = "openai/gpt-4o-mini";

describe("chat -c", () => {
  test("--new with -c is a usage error", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: MODEL });
    for (const argv of [
      ["chat", "-c", "--new"],
      ["--new", "--continue"],
    ]) {
      const run = await box.run(argv, { env, stdin: "" });
      expect(run.code).toBe(64);
      expect(run.stderr).toBe("ion: --new and --continue cannot be used together\n");
    }
  });

  test.skipIf(!HAS_TMUX)(
    "`ion -c` resumes the latest session; `ion run -c -o json` meanwhile names the chat holding it",
    async () => {
      using box = new Sandbox();
      await box.writeConfig({ model: MODEL });
      server.enqueueReply("openai", { text: "Noted: apple." });
      const first = await box.run(["run", "-o", "json", "remember apple"], { env });
      expect(first.code).toBe(0);
      const id = ResultSchema.parse(JSON.parse(first.stdout)).session_id;

      const term = await Terminal.start({ args: ["-c"], env: box.env(env), cwd: box.workspace, cols: 120 });
      await term.waitFor(`resumed ${id.slice(0, 13)} "remember apple"`, 10_000);
      await term.waitFor((screen) => screen.endsWith("\n> "));
      const before = server.requests.length;
      server.enqueueReply("openai", { text: "It was apple." });
      await term.sendText("which fruit?");
      await term.sendKeys("Enter");
      await term.waitFor("It was apple.");
      const request = (await server.waitForRequests(before + 1))[before];
      expect(transcript(request!)).toEqual([
        "user: remember apple",
        "assistant: Noted: apple.",
        "user: which fruit?",
      ]);

      // The chat still holds the session: a script continuing it is refused and told by whom.
      const busy = await box.run(["run", "-c", "-o", "json", "and now?"], { env });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(
        `ion: session ${id} is in use by another ion process (pid ${term.pid}, an ion chat)`,
      );
      const result = ResultSchema.parse(JSON.parse(busy.stdout));
      expect(result).toMatchObject({ is_error: true, subtype: "error_during_execution" });
      // The id it reports is a session that exists (the one it was refused), not a new one never saved.
      expect(result.session_id).toBe(id);
      expect(box.sessionFiles()).toEqual([`${id}.jsonl.zst`]);
      expect(server.requests.length).toBe(before + 1);
    },
  );
});
