/**
 * End to end, in a real terminal (tmux): `@` mentions as a user types them. Tab after `@` completes a
 * workspace path fuzzily (`@srcmai` → `@src/main.ts`) and never offers a .gitignored file; Enter sends
 * the file with the message and a dim line says what went; a binary file is refused with nothing sent;
 * `@nosuch` and an email address stay text. Waits poll the screen, nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("chat-mentions-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-chat-mentions-tmux-0000000000042");
const MAIN = 'console.log("hello from main");\n';
const atPrompt = (screen: string) => screen.endsWith("\n> ");

async function workspace(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: "openai/gpt-4o-mini" });
  mkdirSync(join(box.workspace, "src"));
  await Bun.write(join(box.workspace, "src", "main.ts"), MAIN);
  await Bun.write(join(box.workspace, "src", "chat.ts"), "export {};\n");
  await Bun.write(join(box.workspace, "README.md"), "# demo\n");
  return box;
}

async function chatIn(box: Sandbox): Promise<Terminal> {
  const term = await Terminal.start({
    args: ["chat"],
    env: box.env(env),
    cwd: box.workspace,
    cols: 120,
    rows: 30,
  });
  await term.waitFor(atPrompt, 10_000);
  return term;
}

/** The text of the last request's last user message (the OpenAI wire joins its text blocks). */
function lastUserText(): string {
  const body = server.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
  const content = body.messages.filter((m) => m.role === "user").at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe.skipIf(!HAS_TMUX)("@ mentions in a terminal", () => {
  test("Tab completes @srcmai to @src/main.ts; Enter sends the file and says it went", async () => {
    using box = await workspace();
    using term = await chatIn(box);
    await term.sendText("explain @srcmai");
    await term.sendKeys("Tab");
    await term.waitFor((s) => s.endsWith("> explain @src/main.ts"));
    server.enqueueReply("openai", { text: "It says hello." });
    await term.sendText(" briefly");
    await term.sendKeys("Enter");
    const screen = await term.waitFor((s) => s.includes("It says hello.") && atPrompt(s));
    expect(screen).toContain("> explain @src/main.ts briefly\nattached: src/main.ts (32 B)\n");
    expect(lastUserText()).toBe(`<file path="src/main.ts">\n${MAIN}</file>\n\nexplain @src/main.ts briefly`);
  });

  test("a .gitignored file is never offered", async () => {
    using box = await workspace();
    await Bun.write(join(box.workspace, ".gitignore"), "outbox.log\n");
    await Bun.write(join(box.workspace, "outbox.log"), "ignored\n");
    await Bun.write(join(box.workspace, "src", "outline.md"), "# plan\n");
    using term = await chatIn(box);
    await term.sendText("see @outb");
    await term.sendKeys("Tab");
    // `outbox.log` would be the prefix match; ignored, the fuzzy match wins.
    await term.waitFor((s) => s.endsWith("> see @src/outline.md"));
    expect(await term.capture()).not.toContain("outbox.log");
  });

  test("a binary file is refused with nothing sent; @nosuch and an email address stay text", async () => {
    using box = await workspace();
    await Bun.write(join(box.workspace, "blob.bin"), new Uint8Array([1, 0, 2, 0, 3]));
    using term = await chatIn(box);
    const before = server.requests.length;
    await term.sendText("what is @blob.bin");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("nothing was sent") && atPrompt(s));
    expect(await term.capture()).toContain(
      "ion: cannot attach blob.bin: it is a binary file (NUL bytes or invalid UTF-8), not text; nothing was sent",
    );
    expect(server.requests.length).toBe(before);

    server.enqueueReply("openai", { text: "Noted." });
    await term.sendText("ask @nosuch, mail me@example.com");
    await term.sendKeys("Enter");
    const screen = await term.waitFor((s) => s.includes("Noted.") && atPrompt(s));
    expect(lastUserText()).toBe("ask @nosuch, mail me@example.com");
    expect(screen).not.toContain("attached:");
  });
});
