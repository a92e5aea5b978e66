import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expireSessions } from "../../src/agent/session-file.ts";
import {
  applyRetention,
  DEFAULT_RETENTION_DAYS,
  describeRetention,
  markRetentionChecked,
  RETENTION_STAMP,
  retentionDays,
  retentionDue,
  trashDir,
  trashedName,
} from "../../src/history/retention.ts";
import { SessionStore, type SessionWriter } from "../../src/history/store.ts";

const DAY = 86_400_000;
const NOW = new Date("2030-03-01T12:00:00.000Z");
const USAGE = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

let data: string;
let store: SessionStore;

beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), "ion-retention-"));
  store = SessionStore.forDataDir(data);
});
afterEach(() => {
  rmSync(data, { recursive: true, force: true });
});

/** A session whose last save was `ageDays` before NOW (the store dates sessions by their file's mtime). */
async function session(title: string, ageDays: number, keepOpen = false): Promise<SessionWriter> {
  const writer = await store.create({ cwd: data, provider: "openai", model: "gpt-4o", title });
  await writer.append([
    { type: "message", message: { role: "user", content: [{ type: "text", text: `about ${title}` }] } },
    {
      type: "message",
      usage: USAGE,
      message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
    },
  ]);
  if (!keepOpen) await writer.close();
  const when = new Date(NOW.getTime() - ageDays * DAY);
  utimesSync(writer.path, when, when);
  return writer;
}

const trashNames = () => (existsSync(trashDir(data)) ? readdirSync(trashDir(data)).sort() : []);
const later = (days: number) => new Date(NOW.getTime() + days * DAY);

describe("applyRetention", () => {
  test("moves sessions older than `days` to the trash and keeps the fresh ones", async () => {
    const old = await session("old", 40);
    const edge = await session("edge", 29.9);
    const fresh = await session("fresh", 1);

    const result = await applyRetention({ store, dataDir: data, days: 30, now: NOW });

    expect(result.moved.map((s) => s.id)).toEqual([old.id]);
    expect(result.moved[0]).toMatchObject({ title: "old", messages: 2, tokens: { input: 100, output: 20 } });
    expect(result.moved[0]!.updated_at).toBe(new Date(NOW.getTime() - 40 * DAY).toISOString());
    expect(result.purged).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(existsSync(old.path)).toBe(false);
    const trashed = `${old.id}.trashed-${NOW.getTime()}.jsonl.zst`;
    expect(trashNames()).toEqual([trashed]);
    // The move time is recorded in the name and in the mtime.
    expect(statSync(join(trashDir(data), trashed)).mtimeMs).toBe(NOW.getTime());
    // Moved, not rewritten: the file still decodes to the same session.
    const text = new TextDecoder().decode(
      Bun.zstdDecompressSync(await Bun.file(join(trashDir(data), trashed)).bytes()),
    );
    expect(text).toContain(`"id":"${old.id}"`);
    expect((await store.list()).map((s) => s.id).sort()).toEqual([edge.id, fresh.id].sort());
  });

  test("purges a trashed session only after another `days`, never a fresh session", async () => {
    const old = await session("old", 40);
    const fresh = await session("fresh", 0);
    await applyRetention({ store, dataDir: data, days: 30, now: NOW });
    expect(trashNames()).toHaveLength(1);

    // 29 days on: the trashed file is kept; "fresh" is 29 days old, still kept too.
    const soon = await applyRetention({ store, dataDir: data, days: 30, now: later(29) });
    expect(soon).toEqual({ moved: [], purged: [], warnings: [] });
    expect(trashNames()).toHaveLength(1);
    expect(existsSync(fresh.path)).toBe(true);

    // 31 days on: the old one is purged; "fresh" (now 31 days old) is only moved, not deleted.
    const afterwards = await applyRetention({ store, dataDir: data, days: 30, now: later(31) });
    expect(afterwards.purged).toEqual([old.id]);
    expect(afterwards.moved.map((s) => s.id)).toEqual([fresh.id]);
    expect(trashNames()).toEqual([`${fresh.id}.trashed-${later(31).getTime()}.jsonl.zst`]);
  });

  test("0 keeps everything forever, the trash included", async () => {
    const ancient = await session("ancient", 5000);
    mkdirSync(trashDir(data), { recursive: true });
    const stale = join(trashDir(data), trashedName("0190aaaa-0000-7000-8000-000000000000.jsonl.zst", 0));
    writeFileSync(stale, "x");

    const result = await applyRetention({ store, dataDir: data, days: 0, now: NOW });

    expect(result).toEqual({ moved: [], purged: [], warnings: [] });
    expect(existsSync(ancient.path)).toBe(true);
    expect(existsSync(stale)).toBe(true);
  });

  test("a trash file without a move time in its name is dated by its mtime", async () => {
    mkdirSync(trashDir(data), { recursive: true });
    const dropped = join(trashDir(data), "0190bbbb-0000-7000-8000-000000000000.jsonl.zst");
    const recent = join(trashDir(data), "0190cccc-0000-7000-8000-000000000000.jsonl.zst");
    writeFileSync(dropped, "x");
    writeFileSync(recent, "x");
    utimesSync(dropped, new Date(NOW.getTime() - 31 * DAY), new Date(NOW.getTime() - 31 * DAY));
    utimesSync(recent, new Date(NOW.getTime() - 2 * DAY), new Date(NOW.getTime() - 2 * DAY));

    const result = await applyRetention({ store, dataDir: data, days: 30, now: NOW });

    expect(result.purged).toEqual(["0190bbbb-0000-7000-8000-000000000000"]);
    expect(existsSync(dropped)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });

  test("a session another process holds open is kept, with a warning", async () => {
    const open = await session("open", 90, true);
    try {
      const result = await applyRetention({ store, dataDir: data, days: 30, now: NOW });
      expect(result.moved).toEqual([]);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toContain(`skipped session ${open.id}`);
      expect(result.warnings[0]).toContain("in use");
      expect(existsSync(open.path)).toBe(true);
    } finally {
      await open.close();
    }
  });

  test("nothing saved yet: nothing to do, no trash made", async () => {
    expect(await applyRetention({ store, dataDir: data, days: 30, now: NOW })).toEqual({
      moved: [],
      purged: [],
      warnings: [],
    });
    expect(existsSync(trashDir(data))).toBe(false);
  });

  test("days must be a whole number ≥ 0", async () => {
    await expect(applyRetention({ store, dataDir: data, days: -1, now: NOW })).rejects.toThrow(RangeError);
    await expect(applyRetention({ store, dataDir: data, days: 1.5, now: NOW })).rejects.toThrow(RangeError);
  });
});

describe("once a day", () => {
  test("retentionDue: no pass recorded, a day or more since the last, or one dated in the future", () => {
    expect(retentionDue(data, NOW)).toBe(true);
    expect(retentionDue(join(data, "not-made-yet"), NOW)).toBe(true);
    markRetentionChecked(data, NOW);
    expect(statSync(join(data, RETENTION_STAMP)).mtimeMs).toBe(NOW.getTime());
    expect(retentionDue(data, NOW)).toBe(false);
    expect(retentionDue(data, new Date(NOW.getTime() + DAY - 1))).toBe(false);
    expect(retentionDue(data, later(1))).toBe(true);
    // The clock was set back by more than a day: the stamp cannot be trusted.
    expect(retentionDue(data, new Date(NOW.getTime() - 2 * DAY))).toBe(true);
  });

  test("markRetentionChecked makes the data dir when there is none yet", () => {
    const fresh = join(data, "new-data-dir");
    markRetentionChecked(fresh, NOW);
    expect(retentionDue(fresh, NOW)).toBe(false);
  });

  test("expireSessions makes a pass at most once a day, and names what it moved", async () => {
    const notices: string[] = [];
    const notice = (line: string) => notices.push(line);
    const first = await session("first old one", 40);
    await expireSessions(store, data, 30, notice, NOW);
    expect(notices).toEqual([
      `moved 1 session(s) not used for 30 days to the trash: ${first.id} (first old one)`,
    ]);
    expect(existsSync(first.path)).toBe(false);

    // Within the day: no pass, so a session that has meanwhile expired stays where it is.
    const second = await session("second old one", 40);
    await expireSessions(store, data, 30, notice, new Date(NOW.getTime() + DAY / 2));
    expect(notices).toHaveLength(1);
    expect(existsSync(second.path)).toBe(true);

    // A day later the next run makes a pass again, and says so.
    await expireSessions(store, data, 30, notice, later(1));
    expect(notices[1]).toBe(
      `moved 1 session(s) not used for 30 days to the trash: ${second.id} (second old one)`,
    );
    expect(existsSync(second.path)).toBe(false);
  });

  test("retention 0 never makes a pass, nor records one", async () => {
    const ancient = await session("ancient", 400);
    await expireSessions(store, data, 0, () => {}, NOW);
    expect(existsSync(ancient.path)).toBe(true);
    expect(existsSync(join(data, RETENTION_STAMP))).toBe(false);
  });
});

describe("helpers", () => {
  test("retentionDays: the configured value, else 30", () => {
    expect(DEFAULT_RETENTION_DAYS).toBe(30);
    expect(retentionDays({})).toBe(30);
    expect(retentionDays({ history: {} })).toBe(30);
    expect(retentionDays({ history: { retention_days: 0 } })).toBe(0);
    expect(retentionDays({ history: { retention_days: 7 } })).toBe(7);
  });

  test("trashedName keeps the extension last", () => {
    expect(trashedName("abc.jsonl.zst", 42)).toBe("abc.trashed-42.jsonl.zst");
    expect(trashedName("abc", 42)).toBe("abc.trashed-42");
  });

  test("describeRetention lists what moved and what was purged", async () => {
    const old = await session("Old work", 40);
    await applyRetention({ store, dataDir: data, days: 30, now: NOW });
    const result = await applyRetention({ store, dataDir: data, days: 30, now: later(1) });
    expect(describeRetention(result, 30, data)).toEqual([]);
    const moved = await session("Another", 45);
    const both = await applyRetention({ store, dataDir: data, days: 30, now: later(31) });
    const lines = describeRetention(both, 30, data);
    expect(lines[0]).toBe(
      `moved 1 session unused for 30+ days to ${trashDir(data)} (deleted after 30 more days):`,
    );
    expect(lines[1]).toBe(`  ${moved.id}  ${both.moved[0]!.updated_at.slice(0, 10)}  Another`);
    expect(lines[2]).toBe(`deleted 1 session from the trash: ${old.id}`);
  });
});
