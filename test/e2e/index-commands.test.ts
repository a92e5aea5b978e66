/**
 * End to end: `ion index [PATH]`, `status`, `symbols --json`, `map`, `clear`, two processes indexing
 * at once, and the chat's side — the repo map as the first turn's context message and `/index`.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { textOf, useOpenAIServer, type WireMessage } from "../support/e2e.ts";

const KEY = "test-key-index-commands-123";
const MODEL = "openai/gpt-4o-mini";
const { server, env } = useOpenAIServer(KEY);

const FILES: Record<string, string> = {
  "src/retry.ts": `export async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  return run();
}

export class Backoff {
  delay(attempt: number): number {
    return attempt * 100;
  }
}
`,
  "src/client.ts": `import { withRetry } from "./retry.ts";

export function fetchUser(id: string) {
  return withRetry(() => fetch(id));
}
`,
  "src/jobs.ts": `import { withRetry } from "./retry.ts";

export const runJob = () => withRetry(async () => 1);
`,
  "tools/store.py": "class Store:\n    def get(self, key):\n        return key\n",
  "tools/blob.py": "\0\0binary",
  "build/out.js": "function ignoredByGit() {}\n",
  ".gitignore": "build/\n",
};

async function project(box: Sandbox): Promise<void> {
  for (const [path, text] of Object.entries(FILES)) await Bun.write(join(box.workspace, path), text);
  await box.writeConfig({ model: MODEL });
}

const SUMMARY =
  /^indexed 4 files \(4 parsed, 0 removed\): 7 symbols; typescript 3, python 1; skipped 1 \(binary 1\); \d+ ms\n$/;

describe("ion index", () => {
  test("builds with one summary line, then status, symbols --json, map and clear", async () => {
    using box = new Sandbox();
    await project(box);
    const built = await box.run(["index"], { env });
    expect(built.stderr).toBe(""); // no progress bar when stderr is not a terminal
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(SUMMARY);
    // Nothing changed: nothing parsed again.
    expect((await box.run(["index"], { env })).stdout).toMatch(/^indexed 4 files \(0 parsed, 0 removed\)/);

    const status = await box.run(["index", "status", "--json"], { env });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      exists: true,
      files: 4,
      symbols: 7,
      languages: { typescript: 3, python: 1 },
      skipped: { binary: 1 },
    });
    const text = await box.run(["index", "status"], { env });
    expect(text.stdout).toContain("files:    4 (typescript 3, python 1)");
    expect(text.stdout).toContain("symbols:  7 definitions,");

    const symbols = await box.run(["index", "symbols", "withRetry", "--json"], { env });
    expect(symbols.code).toBe(0);
    expect(JSON.parse(symbols.stdout)).toEqual([
      {
        path: "src/retry.ts",
        line: 1,
        end_line: 3,
        kind: "function",
        name: "withRetry",
        signature: "export async function withRetry<T>(run: () => Promise<T>): Promise<T> {",
        parent: null,
        match: "exact",
      },
    ]);
    const close = await box.run(["index", "symbols", "ignored"], { env });
    expect(close.stderr).toBe("no definition named or close to ignored\n"); // build/ is .gitignored

    const map = await box.run(["index", "map", "--tokens", "200"], { env });
    expect(map.code).toBe(0);
    expect(map.stdout.split("\n")[0]).toBe("src/retry.ts");
    expect(map.stdout).toContain(
      "  1: export async function withRetry<T>(run: () => Promise<T>): Promise<T> {\n",
    );
    expect(map.stdout.trimEnd().length / 4).toBeLessThanOrEqual(200);

    expect(await box.run(["index", "clear"], { env })).toMatchObject({ code: 0, stderr: "" });
    expect((await box.run(["index", "status"], { env })).stdout).toContain("no index for");
    const gone = await box.run(["index", "symbols", "withRetry"], { env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("no code index for");
    expect(gone.stderr).toContain("hint: `ion index` builds one");
  });

  test("a lookup sees files changed since the last `ion index`", async () => {
    using box = new Sandbox();
    await project(box);
    expect((await box.run(["index"], { env })).code).toBe(0);
    await Bun.write(join(box.workspace, "src/jobs.ts"), "export function scheduleJob() {}\n");
    const found = await box.run(["index", "symbols", "scheduleJob"], { env });
    expect(found.stdout).toBe("src/jobs.ts:1  function  export function scheduleJob() {}\n");
  });

  test("PATH names the project from elsewhere; a symlinked way in finds the same index", async () => {
    using box = new Sandbox();
    await project(box);
    const elsewhere = join(box.root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(box.workspace, join(box.root, "link"));
    const built = await box.run(["index", "../work"], { env, cwd: elsewhere });
    expect(built.stdout).toMatch(SUMMARY);
    const again = await box.run(["index"], { env, cwd: join(box.root, "link") });
    expect(again.stdout).toMatch(/^indexed 4 files \(0 parsed/);
  });

  test("bad arguments are usage errors (64)", async () => {
    using box = new Sandbox();
    await project(box);
    for (const args of [
      ["index", "nope"],
      ["index", "--json"],
      ["index", "map", "--tokens", "0"],
      ["index", "symbols"],
    ]) {
      const run = await box.run(args, { env });
      expect({ args, code: run.code }).toEqual({ args, code: 64 });
    }
  });

  test("two processes indexing the same project at once both finish, and the index is whole", async () => {
    using box = new Sandbox();
    await project(box);
    for (let i = 0; i < 150; i++)
      await Bun.write(join(box.workspace, `gen/m${i}.ts`), `export function gen${i}() { return ${i}; }\n`);
    const [a, b] = await Promise.all([box.run(["index"], { env }), box.run(["index"], { env })]);
    expect([a.code, b.code, a.stderr, b.stderr]).toEqual([0, 0, "", ""]);
    const status = JSON.parse((await box.run(["index", "status", "--json"], { env })).stdout);
    expect(status).toMatchObject({ files: 154, symbols: 157 });
  });
});

describe("the code index in a chat", () => {
  const firstUserTexts = (from: number) =>
    server.requests
      .slice(from)
      .map((r) =>
        (r.body as { messages: WireMessage[] }).messages.filter((m) => m.role === "user").map(textOf),
      );

  test("with an index, the first turn starts with the repo map, once; the system prompt is the same", async () => {
    using box = new Sandbox();
    await project(box);
    const systemOf = (i: number) =>
      ((server.requests[i]?.body ?? {}) as { messages?: WireMessage[] }).messages?.[0];
    const before = server.requests.length;
    server.enqueueReply("openai", { text: "zero" });
    expect((await box.run(["chat"], { env, stdin: "hello\n/quit\n" })).code).toBe(0);
    expect(firstUserTexts(before)[0]).toEqual(["hello"]);

    expect((await box.run(["index"], { env })).code).toBe(0);
    const from = server.requests.length;
    server.enqueueReply("openai", { text: "one" });
    server.enqueueReply("openai", { text: "two" });
    const chat = await box.run(["chat", "--new"], { env, stdin: "what does Backoff do?\nthanks\n/quit\n" });
    expect(chat.code).toBe(0);
    const [first, second] = firstUserTexts(from);
    expect(first).toHaveLength(2);
    expect(first?.[0]).toStartWith("Repository map from ion's code index");
    expect(first?.[0]).toContain("src/retry.ts\n  1: export async function withRetry");
    expect(first?.[1]).toBe("what does Backoff do?");
    // The map stays in the conversation once; the second turn adds no other.
    expect(second?.filter((text) => text.startsWith("Repository map"))).toHaveLength(1);
    expect(second).toHaveLength(3);
    expect(systemOf(from)?.role).toBe("system");
    expect(systemOf(from)).toEqual(systemOf(before));
  });

  test("/index with a path that is missing or a file says so in one line, as ion index does; the chat goes on", async () => {
    using box = new Sandbox();
    await project(box);
    const chat = await box.run(["chat"], { env, stdin: "/index /nonexistent\n/index src/retry.ts\n/quit\n" });
    expect(chat.code).toBe(0);
    const out = chat.stdout + chat.stderr;
    expect(out).toContain("ion: /nonexistent is not a directory");
    expect(out).toContain("ion: src/retry.ts is not a directory");
    expect(out).not.toContain("ENOENT");
    const cli = await box.run(["index", "/nonexistent"], { env });
    expect(cli).toMatchObject({ code: 64, stderr: "ion: /nonexistent is not a directory\n" });
  });

  test("no map without an index, nor with index.map_tokens 0; /index builds one and says so", async () => {
    using box = new Sandbox();
    await project(box);
    const from = server.requests.length;
    server.enqueueReply("openai", { text: "one" });
    const chat = await box.run(["chat"], { env, stdin: "hello there\n/index\n/quit\n" });
    expect(chat.code).toBe(0);
    expect(firstUserTexts(from)[0]).toEqual(["hello there"]);
    expect(chat.stdout + chat.stderr).toMatch(/indexed 4 files \(4 parsed, 0 removed\): 7 symbols/);
    expect((await box.run(["index", "status", "--json"], { env })).stdout).toContain('"exists": true');

    await Bun.write(join(box.workspace, ".ion/config.json"), JSON.stringify({ index: { map_tokens: 0 } }));
    const later = server.requests.length;
    server.enqueueReply("openai", { text: "two" });
    const off = await box.run(["chat", "--new"], { env, stdin: "hello again\n/quit\n" });
    expect(off.code).toBe(0);
    expect(off.stderr).not.toContain("ignored");
    expect(firstUserTexts(later)[0]).toEqual(["hello again"]);
  });
});
