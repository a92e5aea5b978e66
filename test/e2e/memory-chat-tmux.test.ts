/**
 * End to end in a real terminal: `/memory forget ID --hard` deletes a memory for good, as `ion memory
 * forget --hard` does; a bare `/memory forget` or two ids say what it needs.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("test-key-memory-chat-tmux-123");
const MODEL = "openai/gpt-4o-mini";
const atPrompt = (screen: string) => screen.endsWith("\n> ");

async function send(term: Terminal, text: string): Promise<string> {
  const before = (await term.capture()).split("\n> ").length;
  await term.sendText(text);
  await term.sendKeys("Enter");
  return term.waitFor((screen) => atPrompt(screen) && screen.split("\n> ").length > before);
}

test.skipIf(!HAS_TMUX)(
  "/memory forget ID --hard deletes the memory; a bare forget says what it needs",
  async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: MODEL });
    server.enqueueReply("openai", { text: "Noted." });
    expect((await box.run(["run", "Our staging database is heliotrope-42."], { env })).code).toBe(0);
    const listed = await box.run(["memory", "list", "--json"], { env });
    const fact = (JSON.parse(listed.stdout) as { id: string; content: string }[]).find((m) =>
      m.content.includes("heliotrope-42"),
    );
    expect(fact).toBeDefined();

    const term = await Terminal.start({
      args: ["chat"],
      env: box.env(env),
      cwd: box.workspace,
      cols: 120,
      rows: 30,
    });
    await term.waitFor(atPrompt, 10_000);
    expect(await send(term, "/memory forget")).toContain(
      "ion: /memory forget needs one memory id, and --hard to delete it",
    );
    expect(await send(term, `/memory forget ${fact!.id.slice(0, 18)} --hard`)).toContain(
      `deleted ${fact!.id}`,
    );
    await term.sendText("/quit");
    await term.sendKeys("Enter");
    await term.waitFor(/ION-EXIT=0/);

    const after = await box.run(["memory", "list", "--all", "--json"], { env });
    expect(after.stdout).not.toContain("heliotrope-42.");
  },
);
