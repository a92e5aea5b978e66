/**
 * End to end: `@path` mentions in a chat message attach the file, as `ion run -f` does — a text file as a
 * `<file path="…">` block before the message, which keeps its text; one dim line says what went. A word
 * after `@` that is not a file stays text (`@nosuch`, `@user`, an email address). A mentioned file that
 * cannot go (binary, outside the workspace, too large) refuses the message: nothing is sent, and the
 * chat goes on. Driven through piped stdin, the same chat loop as a terminal, one line per message.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, userContents } from "../support/e2e.ts";

const KEY = "sk-test-chat-mentions-00000000000000000042";
const { server, env } = useOpenAIServer(KEY);
const MAIN = 'console.log("hello from main");\n';

async function chatBox(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: "openai/gpt-4o" });
  mkdirSync(join(box.workspace, "src"));
  await Bun.write(join(box.workspace, "src", "main.ts"), MAIN);
  await Bun.write(join(box.workspace, "my notes.md"), "- buy milk\n");
  return box;
}

/** What the chat sent: the user messages of each request, in order. */
async function chat(box: Sandbox, stdin: string) {
  const before = server.requests.length;
  const run = await box.run(["chat"], { env, stdin });
  return { ...run, users: userContents(server.requests.slice(before)) };
}

const fileBlock = (path: string, body: string) =>
  `<file path="${path}">\n${body.replace(/\n$/, "")}\n</file>`;
/** The OpenAI wire sends a message's text blocks as one string, blank lines between them. */
const message = (...blocks: string[]) => blocks.join("\n\n");

describe("@ mentions in chat", () => {
  test("@src/main.ts attaches the file's text before the message, and says so", async () => {
    using box = await chatBox();
    server.enqueueReply("openai", { text: "It prints." });
    const run = await chat(box, "explain @src/main.ts, briefly\n");
    expect(run.code).toBe(0);
    expect(run.users).toEqual([[message(fileBlock("src/main.ts", MAIN), "explain @src/main.ts, briefly")]]);
    expect(run.stderr).toContain(`attached: src/main.ts (${MAIN.length} B)`);
  });

  test("quoted and backslash-escaped paths with spaces attach; a repeated mention attaches once", async () => {
    using box = await chatBox();
    server.enqueueReply("openai", { text: "ok" });
    server.enqueueReply("openai", { text: "ok" });
    const run = await chat(
      box,
      'sum up @"my notes.md" and @src/main.ts\nagain @my\\ notes.md @my\\ notes.md\n',
    );
    expect(run.code).toBe(0);
    const notes = fileBlock("my notes.md", "- buy milk\n");
    expect(run.users[0]).toEqual([
      message(notes, fileBlock("src/main.ts", MAIN), 'sum up @"my notes.md" and @src/main.ts'),
    ]);
    expect(run.users[1]?.[1]).toEqual(message(notes, "again @my\\ notes.md @my\\ notes.md"));
    expect(run.stderr).toContain("attached: my notes.md (11 B), src/main.ts");
  });

  test("@nosuch, @user and an email address stay plain text", async () => {
    using box = await chatBox();
    server.enqueueReply("openai", { text: "ok" });
    const line = "ask @nosuch or @user, mail me@example.com";
    const run = await chat(box, `${line}\n`);
    expect(run.code).toBe(0);
    expect(run.users).toEqual([[line]]);
    expect(run.stderr).not.toContain("attached");
  });

  test("a binary file is refused and the message is not sent; the chat goes on", async () => {
    using box = await chatBox();
    await Bun.write(join(box.workspace, "blob.bin"), new Uint8Array([1, 0, 2, 0, 3]));
    server.enqueueReply("openai", { text: "ok" });
    const run = await chat(box, "what is @blob.bin\nhello\n");
    expect(run.stderr).toContain(
      "ion: cannot attach blob.bin: it is a binary file (NUL bytes or invalid UTF-8), not text; nothing was sent",
    );
    expect(run.users).toEqual([["hello"]]);
  });

  test("a file outside the workspace, directly or through a symlink, is refused; nothing is sent", async () => {
    using box = await chatBox();
    await Bun.write(join(box.root, "secret.txt"), "s3cret\n");
    symlinkSync(join(box.root, "secret.txt"), join(box.workspace, "link.txt"));
    server.enqueueReply("openai", { text: "ok" });
    const run = await chat(box, "read @../secret.txt\nread @link.txt\nhello\n");
    expect(run.stderr).toContain(
      "ion: cannot attach @../secret.txt: it is outside the workspace; nothing was sent",
    );
    expect(run.stderr).toContain(
      "ion: cannot attach @link.txt: it is outside the workspace; nothing was sent",
    );
    expect(run.stderr).toContain("workspace.allow");
    expect(run.users).toEqual([["hello"]]);
    expect(JSON.stringify(server.requests.at(-1)?.body)).not.toContain("s3cret");
  });

  test("a text file over 1 MB is refused", async () => {
    using box = await chatBox();
    await Bun.write(join(box.workspace, "big.log"), "x".repeat(2 * 1024 * 1024));
    const before = server.requests.length;
    const run = await chat(box, "summarise @big.log\n");
    expect(run.stderr).toContain(
      "ion: cannot attach @big.log: it is 2.0 MB; text files up to 1.0 MB; nothing was sent",
    );
    expect(server.requests.length).toBe(before);
  });
});
