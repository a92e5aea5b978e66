/**
 * End to end: memory across sessions with the compiled binary against the fake server — a fact told
 * in one session is recalled in a new session in another directory, as one user-role message before
 * the prompt, while the system prompt keeps its bytes; `ion memory search|list|forget|stats`,
 * `--as-of`, `ion reset --all`; what is never learnt or recalled (--no-session, memory.enabled false,
 * the session's own turns, the memory message itself); a damaged memory.db moved aside with one warning.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const KEY = "test-key-memory-e2e-123";
const MODEL = ["-m", "openai/gpt-4o-mini"];
const { server, env } = useOpenAIServer(KEY);

type Message = { role: string; content: unknown };
type Body = { messages: Message[] };
const chatBodies = () =>
  server.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body as Body);
const textOf = (message: Message | undefined) => JSON.stringify(message?.content ?? "");

const FACT = "Remember this: our staging database is called heliotrope-42 and lives in Frankfurt.";
const QUESTION = "Which database do we use for staging, and where is it?";

/** A run in `dir` (a directory of its own under the sandbox), with the answer given. */
async function runIn(box: Sandbox, dir: string, prompt: string, answer: string, flags: string[] = []) {
  const cwd = join(box.root, dir);
  mkdirSync(cwd, { recursive: true });
  server.enqueueReply("openai", { text: answer });
  const run = await box.run(["run", ...MODEL, ...flags, prompt], { env, cwd });
  expect(run.stderr).not.toContain("warning");
  expect(run.code).toBe(0);
  return run;
}

async function memories(box: Sandbox, ...flags: string[]): Promise<{ id: string; content: string }[]> {
  const run = await box.run(["memory", "list", "--json", ...flags], { env });
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

describe("recall across sessions", () => {
  test("a new session in another directory gets the fact in a user-role message before the prompt", async () => {
    using box = new Sandbox();
    await runIn(box, "project-a", FACT, "Noted: heliotrope-42 in Frankfurt.");
    server.requests.length = 0;
    const run = await runIn(box, "project-b", QUESTION, "heliotrope-42, in Frankfurt.", [
      "-o",
      "stream-json",
    ]);
    const [body] = chatBodies();
    const messages = body?.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(textOf(messages[1])).toContain("<memory_context>");
    expect(textOf(messages[1])).toContain("heliotrope-42");
    expect(textOf(messages[2])).toContain(QUESTION);
    expect(textOf(messages[0])).not.toContain("heliotrope");
    const recall = jsonLines(run.stdout).find((line) => line.subtype === "memory_recall");
    expect(recall?.type).toBe("system");
    expect(recall?.count as number).toBeGreaterThan(0);
    expect(recall?.tokens as number).toBeGreaterThan(0);
    // The memory message is context: it is never learnt again.
    expect((await memories(box)).some((m) => m.content.includes("<memory_context>"))).toBe(false);
  });

  test("the system prompt has the same bytes with memory on and off", async () => {
    using box = new Sandbox();
    await runIn(box, "project-a", FACT, "Noted.");
    server.requests.length = 0;
    await runIn(box, "project-b", QUESTION, "heliotrope-42.");
    await box.writeConfig({ memory: { enabled: false } });
    await runIn(box, "project-b", QUESTION, "heliotrope-42.");
    const [on, off] = chatBodies();
    expect(on?.messages.length).toBe(3);
    expect(off?.messages.length).toBe(2);
    expect(JSON.stringify(on?.messages[0])).toBe(JSON.stringify(off?.messages[0]));
  });

  test("a session's own turns are not recalled into it", async () => {
    using box = new Sandbox();
    await runIn(box, "project-a", FACT, "Noted.");
    server.requests.length = 0;
    await runIn(box, "project-a", QUESTION, "heliotrope-42.", ["-c"]);
    const [body] = chatBodies();
    expect(JSON.stringify(body)).not.toContain("<memory_context>");
  });

  test("small talk recalls nothing, and is still learnt", async () => {
    using box = new Sandbox();
    await runIn(box, "project-a", FACT, "Noted.");
    server.requests.length = 0;
    await runIn(box, "project-b", "hi", "Hello!");
    expect(JSON.stringify(chatBodies()[0])).not.toContain("<memory_context>");
    expect((await memories(box)).map((m) => m.content)).toContain("user: hi");
  });
});

describe("what is not learnt", () => {
  test("--no-session and memory.enabled false learn nothing", async () => {
    using box = new Sandbox();
    // Neither memory.db nor its inbox of turns waiting to be taken in.
    const memoryFiles = () => readdirSync(box.dataDir).filter((name) => name.startsWith("memory"));
    await runIn(box, "a", "The release train leaves on Thursdays at noon.", "Noted.", ["--no-session"]);
    expect(memoryFiles()).toEqual([]);
    await box.writeConfig({ memory: { enabled: false } });
    await runIn(box, "a", "The release train leaves on Thursdays at noon.", "Noted.");
    expect(memoryFiles()).toEqual([]);
    // Reading commands do not create the database either.
    expect(await memories(box)).toEqual([]);
    const stats = await box.run(["memory", "stats", "--json"], { env });
    expect(JSON.parse(stats.stdout)).toMatchObject({ enabled: false, count: 0, last_learned_at: null });
    expect(memoryFiles()).toEqual([]);
  });

  test("secrets are redacted before they are stored", async () => {
    using box = new Sandbox();
    await runIn(
      box,
      "a",
      "Our deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789, keep it handy.",
      "Ok.",
    );
    const stored = JSON.stringify(await memories(box));
    expect(stored).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(stored).not.toContain(KEY);
    expect(stored).toContain("[redacted]");
  });
});

describe("ion memory", () => {
  test("search shows score parts; forget stops recall and --as-of still finds it; --hard deletes", async () => {
    using box = new Sandbox();
    await runIn(box, "a", FACT, "Noted: heliotrope-42.");
    const search = await box.run(["memory", "search", "heliotrope", "--json"], { env });
    expect(search.code).toBe(0);
    const hits = JSON.parse(search.stdout) as { id: string; content: string; score: { fused: number } }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]?.score.fused).toBeGreaterThan(0);
    const text = await box.run(["memory", "search", "heliotrope"], { env });
    expect(text.stdout).toContain("bm25 #1");

    const before = new Date().toISOString();
    await Bun.sleep(20);
    const userLine = hits.find((hit) => hit.content.startsWith("user:"));
    if (!userLine) throw new Error("the user's message was not learnt");
    const forget = await box.run(["memory", "forget", userLine.id.slice(0, 23)], { env });
    expect(forget.code).toBe(0);
    expect(forget.stdout).toStartWith(`forgot ${userLine.id}`);

    const after = JSON.parse((await box.run(["memory", "search", "heliotrope", "--json"], { env })).stdout);
    expect(after.map((hit: { id: string }) => hit.id)).not.toContain(userLine.id);
    const then = await box.run(["memory", "search", "heliotrope", "--as-of", before, "--json"], { env });
    expect(JSON.parse(then.stdout).map((hit: { id: string }) => hit.id)).toContain(userLine.id);
    expect((await memories(box, "--all")).map((m) => m.id)).toContain(userLine.id);

    expect((await box.run(["memory", "forget", userLine.id, "--hard"], { env })).code).toBe(0);
    const gone = await box.run(["memory", "search", "heliotrope", "--as-of", before, "--json"], { env });
    expect(JSON.parse(gone.stdout).map((hit: { id: string }) => hit.id)).not.toContain(userLine.id);
  });

  test("stats: count, size, no embedding model, the last learnt", async () => {
    using box = new Sandbox();
    await runIn(box, "a", FACT, "Noted.");
    const stats = await box.run(["memory", "stats", "--json"], { env });
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({
      enabled: true,
      count: 2,
      valid: 2,
      embedding_model: null,
      last_learned_at: expect.any(String),
    });
    const text = await box.run(["memory", "stats"], { env });
    expect(text.stdout).toContain("none: BM25 + recency only");
  });

  test("usage errors: no query, a bad date, an unknown id", async () => {
    using box = new Sandbox();
    expect((await box.run(["memory", "search"], { env })).code).toBe(64);
    const date = await box.run(["memory", "search", "x", "--as-of", "last tuesday"], { env });
    expect(date.code).toBe(64);
    expect(date.stderr).toContain('--as-of "last tuesday" is not a date');
    expect((await box.run(["memory", "forget", "0190ffff"], { env })).code).toBe(64);
    expect((await box.run(["memory", "list", "--type", "dreams"], { env })).code).toBe(64);
  });
});

describe("ion reset", () => {
  test("without --all memory stays; --all -y wipes it", async () => {
    using box = new Sandbox();
    await runIn(box, "a", FACT, "Noted.");
    expect((await box.run(["reset", "-y"], { env })).code).toBe(0);
    expect(await memories(box)).toHaveLength(2);
    const all = await box.run(["reset", "--all"], { env });
    expect(all.code).toBe(64);
    expect(await memories(box)).toHaveLength(2);
    const wiped = await box.run(["reset", "--all", "-y"], { env });
    expect(wiped.code).toBe(0);
    expect(wiped.stdout).toBe("deleted 0 sessions (plus the memory (2 memories))\n");
    expect(await memories(box, "--all")).toEqual([]);
  });
});

describe("ion reset --all with turns not yet taken in", () => {
  test("what waits in the inbox is counted and wiped too", async () => {
    using box = new Sandbox();
    // Small talk recalls nothing, and learning only posts: no database is opened.
    await runIn(box, "a", "hi", "Hello!");
    expect(readdirSync(box.dataDir)).not.toContain("memory.db");
    const wiped = await box.run(["reset", "--all", "-y"], { env });
    expect(wiped.code).toBe(0);
    expect(wiped.stdout).toBe("deleted 1 session (plus the memory (2 memories))\n");
    expect(await memories(box, "--all")).toEqual([]);
  });
});

describe("a damaged memory.db", () => {
  test("is moved aside with one warning; the run answers and a new database learns", async () => {
    using box = new Sandbox();
    writeFileSync(join(box.dataDir, "memory.db"), "this is not a database, only garbage bytes ".repeat(200));
    server.enqueueReply("openai", { text: "Noted." });
    const run = await box.run(["run", ...MODEL, FACT], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Noted.\n");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("warning");
    expect(readdirSync(box.dataDir).some((name) => name.startsWith("memory.db.corrupt-"))).toBe(true);
    expect(await memories(box)).toHaveLength(2);
  });
});
