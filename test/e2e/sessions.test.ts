/**
 * End to end: `ion sessions list|show|rm|export` and `ion reset`, against sessions written with the
 * real store into the sandbox's data dir.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { NewEntry } from "../../src/history/schema.ts";
import { SessionStore } from "../../src/history/store.ts";
import { Sandbox } from "../support/cli.ts";

const USAGE = {
  input_tokens: 1500,
  output_tokens: 250,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};
const LONG_RESULT = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");

/** A conversation of one run that was compacted: messages #0 and #1 are out of the model's view. */
const CONVERSATION: NewEntry[] = [
  { type: "message", message: { role: "user", content: [{ type: "text", text: "why does parse fail?" }] } },
  {
    type: "message",
    usage: USAGE,
    stop_reason: "tool_use",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "read the parser first" },
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "call_1", name: "read_file", input: { path: "src/parse.ts" } },
      ],
    },
  },
  {
    type: "message",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "call_1", content: LONG_RESULT, is_error: false }],
    },
  },
  {
    type: "compaction",
    trigger: "auto",
    summary: "The user asked why parse fails; the parser was read.",
    first_kept: 2,
    tokens_before: 12000,
    tokens_after: 3000,
    method: "summary",
  },
  { type: "model_change", provider: "anthropic", model: "claude-sonnet-4-5" },
  {
    type: "message",
    usage: USAGE,
    stop_reason: "end_turn",
    message: { role: "assistant", content: [{ type: "text", text: "The quote is unbalanced." }] },
  },
  { type: "run_end", subtype: "success", num_turns: 2, usage: USAGE, total_cost_usd: 0.0042, errors: [] },
];

interface Made {
  id: string;
  path: string;
}

/** Writes a session through the store; `minutesAgo` sets its last update (the file's mtime). */
async function makeSession(
  box: Sandbox,
  options: { title: string; cwd?: string; id?: string; minutesAgo?: number; entries?: NewEntry[] },
): Promise<Made> {
  const store = SessionStore.forDataDir(box.dataDir);
  const writer = await store.create({
    ...(options.id ? { id: options.id } : {}),
    cwd: options.cwd ?? workspace(box),
    provider: "openai",
    model: "gpt-4o",
    title: options.title,
  });
  await writer.append(options.entries ?? CONVERSATION);
  await writer.close();
  const when = new Date(Date.now() - (options.minutesAgo ?? 0) * 60_000);
  utimesSync(writer.path, when, when);
  return { id: writer.id, path: writer.path };
}

/** The CLI's cwd as the process sees it (symlinks resolved), as `ion run` records it. */
function workspace(box: Sandbox): string {
  return realpathSync(box.workspace);
}

function otherDir(box: Sandbox): string {
  const dir = join(box.root, "elsewhere");
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

const ListItem = z.strictObject({
  id: z.string(),
  updated_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
  cwd: z.string(),
  title: z.string(),
  provider: z.string(),
  model: z.string(),
  messages: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative().nullable(),
});

const rows = (stdout: string) => stdout.trimEnd().split("\n");

describe("ion sessions list", () => {
  test("this directory's sessions, newest first; --all adds the others and a CWD column", async () => {
    using box = new Sandbox();
    const older = await makeSession(box, { title: "Fix the parser", minutesAgo: 180 });
    const newer = await makeSession(box, { title: "Write the docs", minutesAgo: 3 });
    const away = await makeSession(box, { title: "Elsewhere", cwd: otherDir(box), minutesAgo: 60 });

    const here = await box.run(["sessions", "list"]);
    expect(here.code).toBe(0);
    const lines = rows(here.stdout);
    expect(lines[0]).toMatch(/^ID\s+UPDATED\s+TITLE\s+MESSAGES\s+TOKENS\s+COST$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      new RegExp(`^${newer.id.slice(0, 13)}\\S*\\s+3m ago\\s+Write the docs\\s+4\\s+3\\.5k\\s+\\$0\\.0042$`),
    );
    expect(lines[2]).toMatch(
      new RegExp(`^${older.id.slice(0, 13)}\\S*\\s+3h ago\\s+Fix the parser\\s+4\\s+3\\.5k\\s+\\$0\\.0042$`),
    );

    const all = await box.run(["sessions", "list", "--all"]);
    expect(all.code).toBe(0);
    const allLines = rows(all.stdout);
    expect(allLines[0]).toMatch(/^ID\s+UPDATED\s+CWD\s+TITLE\s+MESSAGES\s+TOKENS\s+COST$/);
    expect(allLines.slice(1).map((l) => l.split(/\s{2,}/)[3])).toEqual([
      "Write the docs",
      "Elsewhere",
      "Fix the parser",
    ]);
    expect(allLines[2]).toContain(away.id.slice(0, 13));

    const there = await box.run(["sessions", "list", "--cwd", otherDir(box), "--json"]);
    expect(there.code).toBe(0);
    expect(JSON.parse(there.stdout).map((s: { id: string }) => s.id)).toEqual([away.id]);

    // `ion sessions` alone is `ion sessions list`.
    const bare = await box.run(["sessions"]);
    expect(bare.stdout).toBe(here.stdout);
  });

  test("--json: an array of the documented fields", async () => {
    using box = new Sandbox();
    const made = await makeSession(box, { title: "Fix the parser", minutesAgo: 5 });
    await makeSession(box, { title: "Elsewhere", cwd: otherDir(box) });
    const run = await box.run(["sessions", "list", "--json"]);
    expect(run.code).toBe(0);
    const items = z.array(ListItem).parse(JSON.parse(run.stdout));
    expect(items).toEqual([
      {
        id: made.id,
        updated_at: items[0]!.updated_at,
        created_at: items[0]!.created_at,
        cwd: workspace(box),
        title: "Fix the parser",
        provider: "openai",
        model: "gpt-4o",
        messages: 4,
        input_tokens: 3000,
        output_tokens: 500,
        cost_usd: 0.0042,
      },
    ]);
    expect(Date.now() - Date.parse(items[0]!.updated_at)).toBeGreaterThan(4 * 60_000);
    const all = await box.run(["sessions", "list", "--json", "--all"]);
    expect(z.array(ListItem).parse(JSON.parse(all.stdout))).toHaveLength(2);
  });

  test("ids made in the same millisecond are shown long enough to tell apart", async () => {
    using box = new Sandbox();
    await makeSession(box, { title: "one", id: "0190aaaa-bbbb-7ccc-8000-000000000001" });
    await makeSession(box, { title: "two", id: "0190aaaa-bbbb-7ccc-8000-000000000002" });
    await makeSession(box, { title: "three", id: "0190aaaa-cccc-7ccc-8000-000000000003" });
    const run = await box.run(["sessions", "list"]);
    const ids = rows(run.stdout)
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
    expect(ids.sort()).toEqual([
      "0190aaaa-bbbb-7ccc-8000-000000000001",
      "0190aaaa-bbbb-7ccc-8000-000000000002",
      "0190aaaa-cccc",
    ]);
  });

  test("no sessions: a friendly line on stderr, [] for --json, exit 0", async () => {
    using box = new Sandbox();
    await makeSession(box, { title: "Elsewhere", cwd: otherDir(box) });
    const table = await box.run(["sessions", "list"]);
    expect(table).toMatchObject({ code: 0, stdout: "" });
    expect(table.stderr).toContain("no sessions in");
    expect(table.stderr).toContain("--all");
    const json = await box.run(["sessions", "list", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);

    using empty = new Sandbox();
    const none = await empty.run(["sessions", "list", "--all", "--json"]);
    expect(JSON.parse(none.stdout)).toEqual([]);
    expect(none.stderr).toBe("no saved sessions yet\n");
  });

  test("bad usage exits 64 with a hint", async () => {
    using box = new Sandbox();
    const cases = [
      ["sessions", "list", "--bogus"],
      ["sessions", "list", "extra"],
      ["sessions", "list", "--all", "--cwd", "."],
      ["sessions", "frobnicate"],
      ["sessions", "--bogus", "list"],
      ["sessions", "show"],
      ["sessions", "show", "a", "b"],
      ["sessions", "export", "a", "-o"],
    ];
    for (const args of cases) {
      const run = await box.run(args);
      expect({ args, code: run.code }).toEqual({ args, code: 64 });
      expect(run.stderr).toMatch(/^ion: .+\n {2}\S/);
    }
    const unknown = await box.run(["sessions", "frobnicate"]);
    expect(unknown.stderr).toContain('unknown subcommand "frobnicate"');
    expect(unknown.stderr).toContain("list, show, search, rm, export");
  });

  test("--help lists the subcommands", async () => {
    using box = new Sandbox();
    const help = await box.run(["sessions", "--help"]);
    expect(help.code).toBe(0);
    for (const name of ["list", "show", "rm", "export"]) expect(help.stdout).toContain(name);
    const reset = await box.run(["reset", "--help"]);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain("--yes");
  });
});

describe("ion sessions show", () => {
  test("the whole transcript: compacted-away messages, the compaction marker, tools, run end", async () => {
    using box = new Sandbox();
    const made = await makeSession(box, { title: "Fix the parser" });
    const run = await box.run(["sessions", "show", made.id.slice(0, 18)]);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out.startsWith(`Fix the parser\nsession ${made.id}\n`)).toBe(true);
    expect(out).toMatch(/── user #0 · \S+ · compacted away ──\nwhy does parse fail\?/);
    expect(out).toMatch(
      /── assistant #1 · \S+ · compacted away ──\nthinking:\n {2}┊ read the parser first\n/,
    );
    expect(out).toContain('● read_file {"path":"src/parse.ts"}');
    expect(out).toMatch(/── tool results #2 · \S+ ──\n✓ result of read_file\n {4}line 0\n/);
    expect(out).toContain("… 28 more lines");
    expect(out).not.toContain("line 39");
    expect(out).toContain(
      "── compacted here #3 (auto): summary of #0–#1, 12,000 → 3,000 tokens ──\n    The user asked why parse fails; the parser was read.",
    );
    expect(out).toContain("── model change #4: anthropic/claude-sonnet-4-5 ──");
    expect(out).toContain("The quote is unbalanced.");
    expect(out).toContain("── run end #6: success · 2 turns · 1,500 in / 250 out tokens · $0.0042 ──");
    // Entries in file order.
    expect(out.indexOf("why does parse fail?")).toBeLessThan(out.indexOf("compacted here"));
    expect(out.indexOf("compacted here")).toBeLessThan(out.indexOf("The quote is unbalanced."));
  });

  test("--json: the header and every entry", async () => {
    using box = new Sandbox();
    const made = await makeSession(box, { title: "Fix the parser" });
    const run = await box.run(["sessions", "show", made.id, "--json"]);
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout);
    expect(parsed.header).toMatchObject({ type: "session", id: made.id, title: "Fix the parser" });
    expect(parsed.entries.map((e: { type: string }) => e.type)).toEqual([
      "message",
      "message",
      "message",
      "compaction",
      "model_change",
      "message",
      "run_end",
    ]);
    expect(parsed.entries[2].message.content[0].content).toBe(LONG_RESULT);
  });

  test("an ambiguous or unknown prefix is a usage error naming the matches", async () => {
    using box = new Sandbox();
    await makeSession(box, { title: "one", id: "0190aaaa-bbbb-7ccc-8000-000000000001" });
    await makeSession(box, { title: "two", id: "0190aaaa-bbbb-7ccc-8000-000000000002" });
    const ambiguous = await box.run(["sessions", "show", "0190aaaa"]);
    expect(ambiguous.code).toBe(64);
    expect(ambiguous.stderr).toContain("0190aaaa matches 2 sessions");
    expect(ambiguous.stderr).toContain("0190aaaa-bbbb-7ccc-8000-000000000001");
    const missing = await box.run(["sessions", "show", "ffff"]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("no session matches ffff");
    expect(missing.stderr).toContain("ion sessions list");
  });

  test("a corrupt file: one line saying it was moved aside, exit 1", async () => {
    using box = new Sandbox();
    const sessions = join(box.dataDir, "sessions");
    mkdirSync(sessions, { recursive: true });
    const id = "0190dddd-0000-7000-8000-000000000000";
    writeFileSync(join(sessions, `${id}.jsonl.zst`), "definitely not zstd");
    const run = await box.run(["sessions", "show", "0190dddd"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(`session ${id} is corrupt`);
    expect(run.stderr).toContain("moved it aside to");
    const left = readdirSync(sessions);
    expect(left).toHaveLength(1);
    expect(left[0]).toStartWith(`${id}.jsonl.zst.corrupt-`);
  });
});

describe("ion sessions rm", () => {
  test("deletes exactly one session and says so", async () => {
    using box = new Sandbox();
    const gone = await makeSession(box, { title: "gone" });
    const kept = await makeSession(box, { title: "kept" });
    const run = await box.run(["sessions", "rm", gone.id.slice(0, 20)]);
    expect(run).toMatchObject({ code: 0, stdout: `removed ${gone.id}\n` });
    expect(existsSync(gone.path)).toBe(false);
    expect(existsSync(kept.path)).toBe(true);
    const again = await box.run(["sessions", "rm", gone.id]);
    expect(again.code).toBe(64);
    expect(again.stderr).toContain(`no session matches ${gone.id}`);
  });
});

describe("ion sessions export", () => {
  test("Markdown on stdout, or written to -o FILE", async () => {
    using box = new Sandbox();
    const made = await makeSession(box, { title: "Fix the parser" });
    const stdout = await box.run(["sessions", "export", made.id]);
    expect(stdout.code).toBe(0);
    const md = stdout.stdout;
    expect(md.startsWith("# Fix the parser\n\n")).toBe(true);
    expect(md).toContain(`- **Session:** \`${made.id}\``);
    expect(md).toContain("## User *(compacted away: the model no longer sees it)*");
    expect(md).toContain('**Tool call:** `read_file`\n\n```json\n{\n  "path": "src/parse.ts"\n}\n```');
    expect(md).toContain("line 39"); // export is complete: no truncation
    expect(md).toContain("Compacted here (auto)");

    const file = join(box.root, "out", "transcript.md");
    mkdirSync(join(box.root, "out"));
    const toFile = await box.run(["sessions", "export", made.id.slice(0, 16), "-o", file]);
    expect(toFile).toMatchObject({ code: 0, stdout: "" });
    expect(toFile.stderr).toBe(`exported ${made.id} to ${file}\n`);
    expect(await Bun.file(file).text()).toBe(md);
    expect(readdirSync(join(box.root, "out"))).toEqual(["transcript.md"]); // no temp file left

    const nowhere = await box.run(["sessions", "export", made.id, "-o", join(box.root, "missing", "x.md")]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain("could not write");
  });
});

describe("ion reset", () => {
  async function seed(box: Sandbox): Promise<Made[]> {
    const made = [await makeSession(box, { title: "a" }), await makeSession(box, { title: "b" })];
    mkdirSync(join(box.dataDir, "trash"), { recursive: true });
    writeFileSync(
      join(box.dataDir, "trash", "0190eeee-0000-7000-8000-000000000000.trashed-1.jsonl.zst"),
      "x",
    );
    writeFileSync(join(box.dataDir, "input_history.jsonl"), "hello\n");
    return made;
  }

  test("without a terminal and without -y: refuses (exit 64) and deletes nothing", async () => {
    using box = new Sandbox();
    const made = await seed(box);
    for (const stdin of [undefined, "y\n"]) {
      const run = await box.run(["reset"], stdin === undefined ? {} : { stdin });
      expect(run.code).toBe(64);
      expect(run.stderr).toContain("refusing to delete history without confirmation: pass -y");
    }
    for (const m of made) expect(existsSync(m.path)).toBe(true);
    expect(existsSync(join(box.dataDir, "input_history.jsonl"))).toBe(true);
  });

  test("-y deletes the sessions, the trash and the input history", async () => {
    using box = new Sandbox();
    await seed(box);
    writeFileSync(join(box.dataDir, "keep-me"), "not history");
    const run = await box.run(["reset", "-y"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("deleted 2 sessions (plus 1 file in the trash and the input history)\n");
    expect(readdirSync(box.dataDir)).toEqual(["keep-me"]);
    const list = await box.run(["sessions", "list", "--all", "--json"]);
    expect(JSON.parse(list.stdout)).toEqual([]);
    const again = await box.run(["reset", "-y"]);
    expect(again).toMatchObject({ code: 0, stderr: "no history to delete\n" });
  });

  test("--all without -y: the hint names --all, so following it wipes the memory too", async () => {
    using box = new Sandbox();
    await seed(box);
    const run = await box.run(["reset", "--all"]);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain(
      "hint: `ion reset --all -y` deletes every saved session, the trash, the input history and the memory",
    );
    expect(existsSync(join(box.dataDir, "input_history.jsonl"))).toBe(true);
  });

  test("unknown flags and arguments are usage errors", async () => {
    using box = new Sandbox();
    expect((await box.run(["reset", "--everything"])).code).toBe(64);
    expect((await box.run(["reset", "now"])).code).toBe(64);
  });
});
