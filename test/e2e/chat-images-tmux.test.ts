/**
 * End to end, in a real terminal (tmux): images in the chat as a user attaches them. A dragged file's
 * path arrives as a bracketed paste (quoted, with the space terminals add after it); Enter holds the
 * image and the next message takes it. A model the model list says reads only text refuses a pasted
 * image and an `@shot.png` mention with one line, before any request. Waits poll the screen.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, userContents } from "../support/e2e.ts";
import { FIXTURES } from "../support/fake-llm.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("chat-images-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-chat-images-tmux-000000000042", (url) => ({
  ION_MODELS_URL: `${url}/api.json`,
}));
/** A real 1×1 PNG. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const IMAGE_PART = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } };
const atPrompt = (screen: string) => screen.endsWith("\n> ");

/**
 * The model list as `ion models --refresh` caches it, with the input modalities models.dev gives:
 * gpt-4o reads images, gpt-3.5-turbo reads only text.
 */
async function warmCatalogWithModalities(box: Sandbox): Promise<void> {
  const snapshot = (await Bun.file(`${FIXTURES}models-dev-snapshot.json`).json()) as {
    openai: { models: Record<string, Record<string, unknown>> };
  };
  snapshot.openai.models["gpt-4o"]!.modalities = { input: ["text", "image"], output: ["text"] };
  snapshot.openai.models["gpt-3.5-turbo"]!.modalities = { input: ["text"], output: ["text"] };
  const list = {
    object: "list",
    data: ["gpt-4o", "gpt-3.5-turbo"].map((id) => ({ id, object: "model", created: 1, owned_by: "openai" })),
  };
  const json = { "content-type": "application/json" };
  server.enqueue(
    { body: JSON.stringify(list), headers: json, pathSuffix: "/models" },
    { body: JSON.stringify(snapshot), headers: json, pathSuffix: "/api.json" },
  );
  const run = await box.run(["models", "--refresh", "--json"], { env });
  expect(run.code).toBe(0);
}

/** A chat on `model` in a terminal, with `my shot.png` in the workspace. */
async function chatIn(box: Sandbox, model: string): Promise<{ term: Terminal; shot: string }> {
  await warmCatalogWithModalities(box);
  await box.writeConfig({ model });
  const shot = join(box.workspace, "my shot.png");
  await Bun.write(shot, Buffer.from(PNG_BASE64, "base64"));
  const term = await Terminal.start({ args: ["chat"], env: box.env(env), cwd: box.workspace, cols: 160 });
  await term.waitFor(atPrompt, 10_000);
  return { term, shot };
}

describe.skipIf(!HAS_TMUX)("images in a terminal chat", () => {
  test("a dragged image's path, pasted, is held and goes with the next message", async () => {
    using box = new Sandbox();
    const { term, shot } = await chatIn(box, "openai/gpt-4o");
    // As a terminal drops a file with a space in its name: quoted, a space after it, bracketed.
    await term.paste(`'${shot}' `);
    await term.waitFor((s) => s.endsWith(`> '${shot}' `));
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("it goes with your next message") && atPrompt(s));
    expect(await term.capture()).toContain(`attached [image: ${shot}, 70 B]; it goes with your next message`);

    const before = server.requests.length;
    server.enqueueReply("openai", { text: "A single pixel." });
    await term.sendText("what is this?");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("A single pixel.") && atPrompt(s));
    expect(userContents(server.requests.slice(before))).toEqual([
      [[IMAGE_PART, { type: "text", text: "what is this?" }]],
    ]);
  });

  test("a model that reads only text refuses a pasted image and @shot.png before any request", async () => {
    using box = new Sandbox();
    const { term, shot } = await chatIn(box, "openai/gpt-3.5-turbo");
    const before = server.requests.length;
    const refusal =
      "openai/gpt-3.5-turbo cannot read images; choose a model with image input (`ion models` shows caps)";
    await term.paste(shot);
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes(refusal) && atPrompt(s));

    await term.sendText('what is in @"my shot.png"?');
    await term.sendKeys("Enter");
    const screen = await term.waitFor((s) => s.split(refusal).length === 3 && atPrompt(s));
    // Refused before anything is said to be attached.
    expect(screen).not.toContain("attached");
    expect(server.requests.length).toBe(before);

    // Text still goes, and nothing held from the refused paste goes with it.
    server.enqueueReply("openai", { text: "Plain text it is." });
    await term.sendText("describe it in words then");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Plain text it is.") && atPrompt(s));
    expect(userContents(server.requests.slice(before))).toEqual([["describe it in words then"]]);
  });
});
