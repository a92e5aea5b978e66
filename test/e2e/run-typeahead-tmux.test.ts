/**
 * End to end, in a real terminal (tmux): what the user types while `ion run` works is not ion's to
 * read — it stays in the terminal, so the shell gets it once ion exits (as with any other command).
 * Waits poll the screen, never sleep.
 */
import { afterEach, describe, setDefaultTimeout, test } from "bun:test";
import { ionCommand, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("run-typeahead-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-run-typeahead-tmux-unused");

const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

describe.skipIf(!HAS_TMUX)("typing while ion run works", () => {
  test("a line typed while a tool runs is left for the shell", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini" });
    // The tool waits for a file the test writes once the line is typed: no timing guesses.
    const go = `${box.workspace}/go`;
    server.enqueueReply("openai", {
      toolCalls: [
        { name: "bash", input: { command: `echo tool-started; while [ ! -e ${go} ]; do sleep 0.05; done` } },
      ],
    });
    server.enqueueReply("openai", { text: "all done" });
    const ion = [...ionCommand(), "run", "-y", "work"].map(quoted).join(" ");
    const term = await Terminal.start({
      command: ["sh", "-c", `${ion}; read line; echo "shell got: $line"`],
      env: box.env(env),
      cwd: box.workspace,
      cols: 100,
      rows: 30,
    });
    await term.waitFor("tool-started", 10_000);
    await term.sendText("typed-ahead");
    await term.sendKeys("Enter");
    await Bun.write(go, "");
    await term.waitFor("all done", 10_000);
    await term.waitFor("shell got: typed-ahead", 10_000);
  });
});
