/**
 * End to end: `ion sessions search QUERY` over sessions written with the real store — titles and
 * messages, case-insensitive, newest first, this directory unless --all, `--json`, and text from a
 * session that cannot drive the terminal.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { NewEntry } from "../../src/history/schema.ts";
import { SessionStore } from "../../src/history/store.ts";
import { Sandbox } from "../support/cli.ts";

const text = (role: "user" | "assistant", body: string): NewEntry =>
  role === "user"
    ? { type: "message", message: { role, content: [{ type: "text", text: body }] } }
    : {
        type: "message",
        stop_reason: "end_turn",
        message: { role, content: [{ type: "text", text: body }] },
      };

async function makeSession(
  box: Sandbox,
  options: { title: string; entries: NewEntry[]; minutesAgo: number; cwd?: string },
): Promise<string> {
  const store = SessionStore.forDataDir(box.dataDir);
  const writer = await store.create({
    cwd: options.cwd ?? realpathSync(box.workspace),
    provider: "openai",
    model: "gpt-4o",
    title: options.title,
  });
  await writer.append(options.entries);
  await writer.close();
  const when = new Date(Date.now() - options.minutesAgo * 60_000);
  utimesSync(writer.path, when, when);
  return writer.id;
}

function elsewhere(box: Sandbox): string {
  const dir = join(box.root, "elsewhere");
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

const Item = z.strictObject({
  id: z.string(),
  updated_at: z.iso.datetime(),
  title: z.string(),
  cwd: z.string(),
  entry: z.number().int().nonnegative().nullable(),
  role: z.enum(["title", "user", "assistant", "tool_call"]),
  match: z.string(),
});

const LONG = `${"x".repeat(300)} the Parser broke here ${"y".repeat(300)}`;

async function world(box: Sandbox) {
  const old = await makeSession(box, {
    title: "Fix the parser",
    minutesAgo: 120,
    entries: [text("user", "why does it fail?"), text("assistant", "Because the PARSER\nskips quotes.")],
  });
  const recent = await makeSession(box, {
    title: "Write the docs",
    minutesAgo: 5,
    entries: [
      text("user", "document it"),
      text("assistant", `first line\n${LONG}`),
      {
        type: "message",
        stop_reason: "tool_use",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: "c1", name: "bash", input: { command: "grep -rn parser src" } }],
        },
      },
    ],
  });
  const away = await makeSession(box, {
    title: "Other project",
    minutesAgo: 1,
    cwd: elsewhere(box),
    entries: [text("user", "the parser there")],
  });
  const none = await makeSession(box, {
    title: "Unrelated",
    minutesAgo: 2,
    entries: [text("user", "hello")],
  });
  return { old, recent, away, none };
}

describe("ion sessions search", () => {
  test("finds titles and messages case-insensitively, newest first, in this directory, with the line", async () => {
    using box = new Sandbox();
    const { old, recent } = await world(box);
    const run = await box.run(["sessions", "search", "parser"], { env: box.env() });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const blocks = run.stdout.trimEnd().split("\n\n");
    expect(blocks).toHaveLength(2);
    const [first, second] = blocks.map((b) => b.split("\n"));
    expect(first![0]).toMatch(new RegExp(`^${recent.slice(0, 13)}\\S*  5m ago  Write the docs$`));
    expect(first!.slice(1)).toEqual([
      `  #1 assistant: …${"x".repeat(35)} the Parser broke here ${"y".repeat(62)}…`,
      "  #2 tool call: grep -rn parser src",
    ]);
    expect(second![0]).toMatch(new RegExp(`^${old.slice(0, 13)}\\S*  2h ago  Fix the parser$`));
    expect(second!.slice(1)).toEqual(["  #1 assistant: Because the PARSER"]);
  });

  test("--json: one element per matching line; --all takes in every directory", async () => {
    using box = new Sandbox();
    const { old, recent, away } = await world(box);
    const run = await box.run(["sessions", "search", "--all", "--json", "PARSER"], { env: box.env() });
    expect(run.code).toBe(0);
    const items = z.array(Item).parse(JSON.parse(run.stdout));
    expect(items.map((i) => [i.id, i.entry, i.role])).toEqual([
      [away, 0, "user"],
      [recent, 1, "assistant"],
      [recent, 2, "tool_call"],
      [old, null, "title"],
      [old, 1, "assistant"],
    ]);
    expect(items[0]).toMatchObject({
      title: "Other project",
      cwd: elsewhere(box),
      match: "the parser there",
    });
    expect(items[3]!.match).toBe("Fix the parser");
  });

  test("--cwd names the directory; no match says so on stderr", async () => {
    using box = new Sandbox();
    const { away } = await world(box);
    const there = await box.run(["sessions", "search", "--cwd", elsewhere(box), "--json", "parser"], {
      env: box.env(),
    });
    expect(
      z
        .array(Item)
        .parse(JSON.parse(there.stdout))
        .map((i) => i.id),
    ).toEqual([away]);

    const none = await box.run(["sessions", "search", "no such words"], { env: box.env() });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain('match "no such words"');
    const usage = await box.run(["sessions", "search"], { env: box.env() });
    expect(usage.code).toBe(64);
  });

  test("a session's escape sequences never reach the terminal; the match is bold when colour is on", async () => {
    using box = new Sandbox();
    await makeSession(box, {
      title: "\x1b]0;pwned\x07Title",
      minutesAgo: 1,
      entries: [text("assistant", "before \x1b[2J\x1b]52;c;ZXZpbA==\x07secret after")],
    });
    const plain = await box.run(["sessions", "search", "secret"], { env: box.env() });
    expect(plain.stdout).not.toContain("\x1b");
    expect(plain.stdout).toContain("  #0 assistant: before secret after\n");
    const colour = await box.run(["sessions", "search", "SECRET"], {
      env: box.env({ NO_COLOR: "", FORCE_COLOR: "1" }),
    });
    expect(colour.stdout).toContain("before \x1b[1msecret\x1b[22m after");
    expect(colour.stdout).not.toContain("\x1b]");
    expect(colour.stdout).not.toContain("\x1b[2J");
  });
});

describe("ion sessions search with a damaged file", () => {
  test("a corrupt session file is named in one warning and skipped; the others are still searched", async () => {
    using box = new Sandbox();
    const good = await makeSession(box, {
      title: "Fix the parser",
      entries: [text("user", "why does the parser fail?")],
      minutesAgo: 5,
    });
    const broken = join(box.dataDir, "sessions", "01900000-0000-7000-8000-000000000000.jsonl.zst");
    await Bun.write(broken, "not zstd at all");
    const run = await box.run(["sessions", "search", "parser", "--all", "--json"]);
    expect(run.code).toBe(0);
    const hits = z.array(Item).parse(JSON.parse(run.stdout));
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set([good]));
    const warnings = run.stderr.trim().split("\n");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("01900000-0000-7000-8000-000000000000");
  });
});
