/**
 * End to end: memory with an embedding model. One session states a fact; a new session in another
 * directory asks about it in other words — words that share nothing full-text search can use, so
 * only the vectors can find it — and its request carries the fact in the memory message. The
 * embeddings come from the fake server (hashed bag-of-words vectors), over the OpenAI-compatible
 * `/v1/embeddings` and over Ollama's `/api/embed`; `ion memory stats` names the model.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { textOf, useOpenAIServer, type WireMessage } from "../support/e2e.ts";

const KEY = "test-key-123";
const MODEL = ["-m", "openai/gpt-4o-mini"];
const { server, env } = useOpenAIServer(KEY, (url) => ({ OLLAMA_HOST: url }));

const FACT = "Remember: our staging DB is Postgres 16 behind pgbouncer, and we use port 6543.";
/** "database" and "tools" are not in the fact (full-text search finds nothing); "use" is, as a word the vectors keep. */
const QUESTION = "Which database tools do we use?";

type Body = { messages: WireMessage[] };

const cases = [
  { spec: "openai/text-embedding-3-small", path: "/v1/embeddings", model: "text-embedding-3-small" },
  { spec: "ollama/nomic-embed-text", path: "/api/embed", model: "nomic-embed-text" },
] as const;

describe("recall by meaning across sessions and directories", () => {
  for (const { spec, path, model } of cases) {
    test(`${spec}: the second session's request carries the first one's fact`, async () => {
      using box = new Sandbox();
      await box.writeConfig({ memory: { embedding: spec } });
      const first = server.requests.length;

      server.enqueueReply("openai", { text: "Noted." });
      const one = await box.run(["run", ...MODEL, FACT], { env });
      expect(one.stderr).toBe("");
      expect(one.code).toBe(0);

      const elsewhere = join(box.root, "another-project");
      mkdirSync(elsewhere);
      server.enqueueReply("openai", { text: "Postgres 16 with pgbouncer." });
      const two = await box.run(["run", ...MODEL, QUESTION], { env, cwd: elsewhere });
      expect(two.stderr).toBe("");
      expect(two.code).toBe(0);

      const requests = server.requests.slice(first);
      const chats = requests.filter((r) => r.path.endsWith("/chat/completions"));
      expect(chats).toHaveLength(2);
      const messages = (chats[1]!.body as Body).messages.filter((m) => m.role !== "system");
      // The memory message, then the question.
      expect(messages.map((m) => m.role)).toEqual(["user", "user"]);
      expect(textOf(messages[0]!)).toContain("<memory_context>");
      expect(textOf(messages[0]!)).toContain(`user: ${FACT}`);
      expect(textOf(messages[1]!)).toBe(QUESTION);

      const embeds = requests.filter((r) => r.path === path);
      expect(embeds.length).toBeGreaterThan(0);
      const inputs = embeds.flatMap((r) => (r.body as { model: string; input: string[] }).input);
      for (const r of embeds) expect((r.body as { model: string }).model).toBe(model);
      // The question was embedded, and so was the remembered fact (lazily, at recall).
      expect(inputs).toContain(QUESTION);
      expect(inputs).toContain(`user: ${FACT}`);

      const stats = await box.run(["memory", "stats"], { env });
      expect(stats.code).toBe(0);
      expect(stats.stdout).toContain(`embeddings:  ${spec} (`);
      const json = await box.run(["memory", "stats", "--json"], { env });
      expect(JSON.parse(json.stdout)).toMatchObject({ embedding_model: spec });
    });
  }

  test("without an embedding model the same question finds nothing: full text has no word of the fact", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Noted." });
    expect((await box.run(["run", ...MODEL, FACT], { env })).code).toBe(0);
    const first = server.requests.length;
    server.enqueueReply("openai", { text: "I don't know." });
    const two = await box.run(["run", ...MODEL, QUESTION], { env, cwd: box.root });
    expect(two.code).toBe(0);
    const requests = server.requests.slice(first);
    expect(requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    const messages = (requests[0]!.body as Body).messages.filter((m) => m.role !== "system");
    expect(messages.map(textOf)).toEqual([QUESTION]);
    const stats = await box.run(["memory", "stats"], { env });
    expect(stats.stdout).toContain("embeddings:  none: BM25 + recency only");
  });

  test("an embeddings endpoint that fails is one warning; recall falls back to words and recency", async () => {
    using box = new Sandbox();
    await box.writeConfig({ memory: { embedding: "openai/text-embedding-3-small" } });
    server.enqueueReply("openai", { text: "Noted." });
    expect((await box.run(["run", ...MODEL, FACT], { env })).code).toBe(0);

    const first = server.requests.length;
    const refused = {
      status: 401,
      pathSuffix: "/embeddings",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: { message: "Incorrect API key provided", code: "invalid_api_key" } }),
    };
    server.enqueue(refused);
    server.enqueueReply("openai", { text: "6543." });
    const two = await box.run(["run", ...MODEL, "Which port does pgbouncer listen on for staging?"], {
      env,
      cwd: box.root,
    });
    expect(two.code).toBe(0);
    expect(two.stderr.trim().split("\n")).toHaveLength(1);
    expect(two.stderr).toContain("embeddings openai/text-embedding-3-small: invalid API key for openai");
    expect(two.stderr).not.toContain(KEY);
    const chat = server.requests.slice(first).find((r) => r.path.endsWith("/chat/completions"));
    const memory = (chat!.body as Body).messages.find((m) => textOf(m).includes("<memory_context>"));
    // BM25 still finds the fact by its words.
    expect(memory && textOf(memory)).toContain("pgbouncer");
    expect(server.pending()).toBe(0);
  });
});
