/**
 * End to end: memory in `ion chat` with piped stdin — `/memory` says whether it is on and how much it
 * holds, `/memory search` finds with score parts, `/memory off` and `on` switch recall and learning for
 * this chat, a recall is one dim line, and `/memory forget` from a pipe is refused.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const KEY = "test-key-memory-chat-123";
const MODEL = "openai/gpt-4o-mini";
const { server, env } = useOpenAIServer(KEY);
const QUESTION = "Which database do we use for staging?";

describe("/memory in the chat", () => {
  test("status, search, off and on; a recall is told in one line; forget from a pipe is refused", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: MODEL });
    server.enqueueReply("openai", { text: "Noted." });
    const told = await box.run(["run", "Our staging database is heliotrope-42 in Frankfurt."], { env });
    expect(told.code).toBe(0);

    const cwd = join(box.root, "elsewhere");
    mkdirSync(cwd);
    server.requests.length = 0;
    server.enqueueReply("openai", { text: "No idea." });
    server.enqueueReply("openai", { text: "heliotrope-42." });
    const lines = [
      "/memory",
      "/memory search heliotrope",
      "/memory forget 0190",
      "/memory off",
      QUESTION,
      "/memory on",
      QUESTION,
      "/quit",
    ];
    const chat = await box.run(["chat"], { env, cwd, stdin: `${lines.join("\n")}\n` });
    expect(chat.code).toBe(0);
    const shown = chat.stdout + chat.stderr;
    expect(shown).toContain("memory on · 2 memories");
    expect(shown).toMatch(/user: Our staging database is heliotrope-42/);
    expect(shown).toContain("bm25 #1");
    expect(shown).toContain("/memory forget 0190 refused");
    expect(shown).toContain("memory off for this chat");
    expect(shown).toMatch(/memory: \d+ memor(y|ies) recalled \(\d+ tokens\)/);

    const bodies = server.requests
      .filter((r) => r.path.endsWith("/chat/completions"))
      .map((r) => JSON.stringify(r.body));
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).not.toContain("<memory_context>");
    expect(bodies[1]).toContain("<memory_context>");
    expect(bodies[1]).toContain("heliotrope-42");

    // The turn asked with memory off was not learnt; the one after /memory on was.
    const list = await box.run(["memory", "list", "--json"], { env });
    const contents = (JSON.parse(list.stdout) as { content: string }[]).map((m) => m.content);
    expect(contents.filter((content) => content === `user: ${QUESTION}`)).toHaveLength(1);
    expect(contents).toContain("assistant: heliotrope-42.");
  });
});
