/**
 * End to end: images in a chat. A line that is only an image file's path — as a terminal pastes a
 * dragged file: plain, quoted, with escaped spaces, or a file:// URL — attaches the image to the next
 * message; `@shot.png` in a message attaches it to that message. Driven through piped stdin, which
 * runs the same chat loop as a terminal, one line per message.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { pastedPath } from "../../src/chat/attach.ts";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, userContents } from "../support/e2e.ts";

const KEY = "sk-test-chat-images-000000000000000000042";
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const IMAGE_PART = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } };
const { server, env } = useOpenAIServer(KEY);

async function chatBox(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: "openai/gpt-4o" });
  await Bun.write(join(box.workspace, "my shot.png"), Buffer.from(PNG_BASE64, "base64"));
  await Bun.write(join(box.workspace, "shot.png"), Buffer.from(PNG_BASE64, "base64"));
  return box;
}

/** The user messages of each request the chat made, in order. */
async function chat(box: Sandbox, stdin: string) {
  const before = server.requests.length;
  const run = await box.run(["chat"], { env, stdin });
  return { ...run, users: userContents(server.requests.slice(before)) };
}

describe("images in chat", () => {
  test("a pasted image path is held and goes with the next message", async () => {
    using box = await chatBox();
    server.enqueueReply("openai", { text: "A pixel." });
    const run = await chat(box, `${join(box.workspace, "shot.png")}\nwhat is this?\n`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("attached [image: ");
    expect(run.stderr).toContain("shot.png, 70 B]; it goes with your next message");
    expect(run.users).toEqual([[[IMAGE_PART, { type: "text", text: "what is this?" }]]]);
  });

  test("a quoted path with spaces and an escaped one, as terminals paste them, both attach", async () => {
    using box = await chatBox();
    server.enqueueReply("openai", { text: "Two pixels." });
    const run = await chat(box, "'my shot.png' \nmy\\ shot.png\ncompare them\n");
    expect(run.code).toBe(0);
    expect(run.users).toEqual([[[IMAGE_PART, IMAGE_PART, { type: "text", text: "compare them" }]]]);
  });

  test("@shot.png in a message attaches the image to it; the mention stays in the text", async () => {
    using box = await chatBox();
    server.enqueueReply("openai", { text: "A pixel." });
    const run = await chat(box, "what is in @shot.png?\n");
    expect(run.code).toBe(0);
    expect(run.users).toEqual([[[IMAGE_PART, { type: "text", text: "what is in @shot.png?" }]]]);
  });

  test("a path that is not an image file is an ordinary message", async () => {
    using box = await chatBox();
    await Bun.write(join(box.workspace, "fake.png"), "not an image\n");
    server.enqueueReply("openai", { text: "ok" });
    server.enqueueReply("openai", { text: "ok" });
    const run = await chat(box, "fake.png\nmissing.png\n");
    expect(run.code).toBe(0);
    expect(run.users.at(-1)).toEqual(["fake.png", "missing.png"]);
  });
});

describe("pastedPath", () => {
  test("the forms terminals paste a dragged file in", () => {
    expect(pastedPath("/tmp/shot.png")).toBe("/tmp/shot.png");
    expect(pastedPath("  '/tmp/my shot.PNG' ")).toBe("/tmp/my shot.PNG");
    expect(pastedPath('"/tmp/my shot.jpg"')).toBe("/tmp/my shot.jpg");
    expect(pastedPath("/Users/me/Screen\\ Shot\\ 1.png ")).toBe("/Users/me/Screen Shot 1.png");
    expect(pastedPath("file:///tmp/my%20shot.webp")).toBe("/tmp/my shot.webp");
    expect(pastedPath("what is in shot.png?")).toBeUndefined();
    expect(pastedPath("notes.txt")).toBeUndefined();
  });
});
