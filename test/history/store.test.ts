import { describe, expect, test } from "bun:test";
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { IonError } from "../../src/errors.ts";
import { nativeCodec } from "../../src/history/codec.ts";
import { encodeRecord, scanRecords } from "../../src/history/frames.ts";
import type { NewEntry, SessionEntry } from "../../src/history/schema.ts";
import { CorruptSessionError, SessionStore } from "../../src/history/store.ts";
import { migrateHeader } from "../../src/history/validate.ts";
import { assistantText, filesWith, userText, useTempDirs, zstdDecode } from "./support/fixtures.ts";

const tempDir = useTempDirs("ion-store-");
const encoder = new TextEncoder();

function newStore(): SessionStore {
  return new SessionStore(join(tempDir(), "sessions"));
}

const HEADER = { cwd: "/example/project", provider: "anthropic", model: "claude-x", title: "Fix the build" };

/** Writes a session file by hand: the header line, then one record per group of lines. */
function writeRaw(store: SessionStore, id: string, groups: string[][]): string {
  const path = store.pathOf(id);
  const records = groups.map((lines) =>
    encodeRecord(Bun.zstdCompressSync(encoder.encode(lines.map((l) => `${l}\n`).join("")))),
  );
  Bun.spawnSync(["mkdir", "-p", store.dir]);
  writeFileSync(path, Buffer.concat(records));
  return path;
}

function headerLine(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: "session",
    version: 1,
    id,
    created_at: "2025-01-01T00:00:00.000Z",
    ...HEADER,
    ...extra,
  });
}

function entryLine(n: number, text = `message ${n}`): string {
  return JSON.stringify({ ...userText(text), n, at: "2025-01-01T00:00:00.000Z" });
}

async function expectCorrupt(
  promise: Promise<unknown>,
  path: string,
  original: Uint8Array,
): Promise<CorruptSessionError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CorruptSessionError);
  const corrupt = err as CorruptSessionError;
  expect(corrupt.movedTo).toMatch(/\.jsonl\.zst\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z$/);
  expect(corrupt.movedTo.startsWith(`${path}.corrupt-`)).toBe(true);
  expect(existsSync(path)).toBe(false);
  expect(new Uint8Array(readFileSync(corrupt.movedTo))).toEqual(new Uint8Array(original));
  return corrupt;
}

describe("create, append, load", () => {
  test("the file is <dir>/<id>.jsonl.zst and zstd -dc decodes it to exactly the header line and one line per entry", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    expect(writer.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(writer.path).toBe(join(store.dir, `${writer.id}.jsonl.zst`));
    expect(store.pathOf(writer.id)).toBe(writer.path);
    expect(writer.nextN).toBe(0);
    const first = await writer.append([userText("hello"), assistantText("hi", { input: 10, output: 2 })]);
    const second = await writer.append([
      { type: "model_change", provider: "openai", model: "gpt" },
      {
        type: "run_end",
        subtype: "success",
        num_turns: 1,
        usage: {
          input_tokens: 10,
          output_tokens: 2,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
        total_cost_usd: null,
        errors: [],
      },
    ]);
    expect(writer.nextN).toBe(4);
    await writer.close();
    expect([...first, ...second].map((e) => e.n)).toEqual([0, 1, 2, 3]);
    for (const entry of [...first, ...second]) expect(Date.parse(entry.at)).not.toBeNaN();

    const lines = zstdDecode(writer.path).split("\n");
    expect(lines.pop()).toBe("");
    const header = JSON.parse(lines[0]!);
    expect(Object.keys(header)).toEqual([
      "type",
      "version",
      "id",
      "created_at",
      "cwd",
      "provider",
      "model",
      "title",
    ]);
    expect(header).toMatchObject({ type: "session", version: 1, id: writer.id, ...HEADER });
    expect(lines.slice(1)).toEqual([...first, ...second].map((e) => JSON.stringify(e)));
    expect(Object.keys(JSON.parse(lines[1]!)).slice(0, 3)).toEqual(["type", "n", "at"]);

    const loaded = await store.load(writer.id);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.path).toBe(writer.path);
    expect(loaded.header).toEqual(header);
    expect(loaded.entries).toEqual([...first, ...second]);
  });

  test("a provider's opaque fields on thinking and tool calls are saved and load back unchanged", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    const opaque = (fields: Record<string, unknown>) => ({
      provider: "google",
      wire: "openai" as const,
      fields,
    });
    const entry: NewEntry = {
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "", opaque: opaque({ reasoning_details: [{ data: "enc" }] }) },
          {
            type: "tool_use",
            id: "c1",
            name: "read_file",
            input: { path: "a" },
            opaque: opaque({ thought_signature: "ts" }),
          },
        ],
      },
    };
    await writer.append([userText("q"), entry]);
    await writer.close();
    const loaded = await store.load(writer.id);
    expect(loaded.entries.at(-1)).toMatchObject(entry);
  });

  test("each append adds one record at the end; the file before is a prefix of the file after", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    let before = new Uint8Array(readFileSync(writer.path));
    for (let i = 0; i < 5; i++) {
      await writer.append([userText(`q${i}`), assistantText(`a${i}`)]);
      const after = new Uint8Array(readFileSync(writer.path));
      expect(after.subarray(0, before.length)).toEqual(before);
      expect(scanRecords(after).records).toHaveLength(i + 2);
      before = after;
    }
    await writer.close();
  });

  test("append never reads the file: damage written before it is left alone and the new record lands after it", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    await writer.append([userText("one")]);
    const fd = openSync(writer.path, "r+");
    writeSync(fd, "XXXX", 0);
    closeSync(fd);
    const damaged = new Uint8Array(readFileSync(writer.path));
    const saved = await writer.append([userText("two")]);
    expect(saved[0]!.n).toBe(1);
    const after = new Uint8Array(readFileSync(writer.path));
    expect(after.subarray(0, damaged.length)).toEqual(damaged);
    const tail = after.subarray(damaged.length);
    expect(
      scanRecords(Buffer.concat([encodeRecord(Bun.zstdCompressSync(encoder.encode("x\n"))), tail])).records,
    ).toHaveLength(2);
    await writer.close();
  });

  test("create takes a given id and refuses an existing or malformed one", async () => {
    const store = newStore();
    const writer = await store.create({ ...HEADER, id: "given-id_1" });
    expect(writer.id).toBe("given-id_1");
    await writer.close();
    await expect(store.create({ ...HEADER, id: "given-id_1" })).rejects.toThrow(
      "session given-id_1 already exists",
    );
    for (const bad of ["../escape", "a/b", "", ".hidden", "x".repeat(200)]) {
      await expect(store.create({ ...HEADER, id: bad })).rejects.toBeInstanceOf(IonError);
      expect(() => store.pathOf(bad)).toThrow("invalid session id");
    }
    expect(existsSync(join(store.dir, "given-id_1.lock"))).toBe(false);
  });

  test("entries are validated when read, not when written: one forced past the types fails the load", async () => {
    // ion's own entries are typed by the schema, so appending does not check them again.
    const store = newStore();
    const writer = await store.create(HEADER);
    const bad = { type: "message", message: { role: "robot", content: [] } } as unknown as NewEntry;
    await writer.append([userText("fine"), bad]);
    expect(writer.nextN).toBe(2);
    await writer.close();
    const err = await store.load(writer.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptSessionError);
    expect((err as CorruptSessionError).reason).toContain("entry 1 (line 3)");
  });

  test("append writes at once; sync makes it durable, can run while more is appended, and is waited for by close", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    await writer.append([userText("one")]);
    // Written: a reader sees it before any sync.
    expect((await store.load(writer.id)).entries).toHaveLength(1);
    const first = writer.sync();
    await writer.append([userText("two")]);
    const second = writer.sync();
    await Promise.all([first, second]);
    await writer.sync(); // nothing new: resolves at once
    await writer.append([userText("three")]);
    const pending = writer.sync();
    await writer.close();
    await pending;
    expect((await store.load(writer.id)).entries.map((e) => e.n)).toEqual([0, 1, 2]);
    await expect(writer.sync()).rejects.toThrow("was closed");
  });

  test("close releases the lock, is idempotent, and a closed writer refuses to append", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    const lock = join(store.dir, `${writer.id}.lock`);
    expect(readFileSync(lock, "utf8")).toStartWith(`${process.pid}`);
    await writer.close();
    await writer.close();
    expect(existsSync(lock)).toBe(false);
    await expect(writer.append([userText("late")])).rejects.toThrow("was closed");
  });

  test("openForAppend continues the numbering and refuses a second writer", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    await writer.append([userText("a"), assistantText("b")]);
    await writer.close();
    const { writer: again, loaded } = await store.openForAppend(writer.id);
    expect(loaded.entries.map((e) => e.n)).toEqual([0, 1]);
    expect(again.nextN).toBe(2);
    await expect(store.openForAppend(writer.id)).rejects.toThrow(
      `session ${writer.id} is in use by another ion process (pid ${process.pid})`,
    );
    const [next] = await again.append([userText("c")]);
    expect(next!.n).toBe(2);
    await again.close();
    expect((await store.load(writer.id)).entries.map((e) => e.n)).toEqual([0, 1, 2]);
  });

  test("load and openForAppend of a missing session are usage errors", async () => {
    const store = newStore();
    await expect(store.load("nope")).rejects.toThrow("no session matches nope");
    await expect(store.openForAppend("nope")).rejects.toThrow("no session matches nope");
    expect(existsSync(join(store.dir, "nope.lock"))).toBe(false);
  });
});

describe("torn tails", () => {
  async function sessionWithTail(): Promise<{
    store: SessionStore;
    id: string;
    whole: Uint8Array;
    validEnd: number;
    kept: SessionEntry[];
  }> {
    const store = newStore();
    const writer = await store.create(HEADER);
    const kept = [
      ...(await writer.append([userText("one")])),
      ...(await writer.append([assistantText("two")])),
    ];
    const validEnd = statSync(writer.path).size;
    await writer.append([userText("three, which a crash cuts"), assistantText("x".repeat(500))]);
    await writer.close();
    return { store, id: writer.id, whole: new Uint8Array(readFileSync(writer.path)), validEnd, kept };
  }

  test("a last save cut at several offsets: load drops it with a warning, openForAppend repairs the file", async () => {
    const { store, id, whole, validEnd, kept } = await sessionWithTail();
    const path = store.pathOf(id);
    for (const cut of [
      validEnd + 1,
      validEnd + 4,
      validEnd + 15,
      validEnd + 16,
      validEnd + 17,
      validEnd + 40,
      whole.length - 1,
    ]) {
      writeFileSync(path, whole.subarray(0, cut));
      const loaded = await store.load(id);
      expect(loaded.entries).toEqual(kept);
      expect(loaded.warnings).toHaveLength(1);
      expect(loaded.warnings[0]).toContain("torn tail");
      expect(statSync(path).size).toBe(cut); // load never writes

      const { writer, loaded: opened } = await store.openForAppend(id);
      expect(opened.entries).toEqual(kept);
      expect(opened.warnings).toHaveLength(1);
      expect(opened.warnings[0]).toMatch(/torn tail.*repaired/);
      expect(statSync(path).size).toBe(validEnd);
      expect(writer.nextN).toBe(2);
      const added = await writer.append([userText("after the repair")]);
      await writer.close();
      const reloaded = await store.load(id);
      expect(reloaded.warnings).toEqual([]);
      expect(reloaded.entries).toEqual([...kept, ...added]);
      expect(zstdDecode(path).split("\n")).toHaveLength(5); // header, 3 entries, final ""
    }
    expect(filesWith(store.dir, "corrupt")).toEqual([]);
  });

  test("a zero-filled tail and a last record with a bad checksum are torn tails too", async () => {
    const { store, id, whole, validEnd, kept } = await sessionWithTail();
    const path = store.pathOf(id);
    writeFileSync(path, Buffer.concat([whole.subarray(0, validEnd), new Uint8Array(8192)]));
    expect((await store.load(id)).warnings[0]).toContain("zero-filled tail");
    const flipped = new Uint8Array(whole);
    flipped[whole.length - 5]! ^= 0x55;
    writeFileSync(path, flipped);
    const loaded = await store.load(id);
    expect(loaded.entries).toEqual(kept);
    expect(loaded.warnings[0]).toContain("checksum mismatch");
  });
});

describe("corrupt files are moved aside, never overwritten", () => {
  test("bad magic", async () => {
    const store = newStore();
    Bun.spawnSync(["mkdir", "-p", store.dir]);
    const path = store.pathOf("bad");
    writeFileSync(path, "this is not zstd at all");
    const original = new Uint8Array(readFileSync(path));
    const err = await expectCorrupt(store.load("bad"), path, original);
    expect(err.id).toBe("bad");
    expect(err.message).toContain("bad magic");
    expect(err.message).toContain(err.movedTo);
  });

  test("a first record that does not decompress", async () => {
    const store = newStore();
    Bun.spawnSync(["mkdir", "-p", store.dir]);
    const path = store.pathOf("undecodable");
    const junk = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5, 6, 7, 8]);
    writeFileSync(path, encodeRecord(junk));
    const err = await expectCorrupt(store.load("undecodable"), path, new Uint8Array(readFileSync(path)));
    expect(err.reason).toContain("cannot decompress");
  });

  test("an invalid header, via openForAppend: moved aside and the lock released", async () => {
    const store = newStore();
    const path = writeRaw(store, "nohead", [[JSON.stringify({ type: "session", version: 1, id: "nohead" })]]);
    const err = await expectCorrupt(store.openForAppend("nohead"), path, new Uint8Array(readFileSync(path)));
    expect(err.reason).toContain("invalid header");
    expect(existsSync(join(store.dir, "nohead.lock"))).toBe(false);
  });

  test("an entry that fails the schema in the middle of the file", async () => {
    const store = newStore();
    const badEntry = JSON.stringify({
      type: "message",
      n: 1,
      at: "t",
      message: { role: "robot", content: [] },
    });
    const path = writeRaw(store, "midbad", [
      [headerLine("midbad")],
      [entryLine(0)],
      [badEntry],
      [entryLine(2)],
    ]);
    const err = await expectCorrupt(store.load("midbad"), path, new Uint8Array(readFileSync(path)));
    expect(err.reason).toContain("entry 1");
  });

  test("entries out of order, a line that is not JSON, a damaged middle record", async () => {
    const store = newStore();
    const cases: [string, string[][], string][] = [
      ["order", [[headerLine("order")], [entryLine(0), entryLine(5)]], "expected 1"],
      ["json", [[headerLine("json")], [entryLine(0)], ["{not json"], [entryLine(2)]], "not JSON"],
    ];
    for (const [id, groups, reason] of cases) {
      const path = writeRaw(store, id, groups);
      const err = await expectCorrupt(store.load(id), path, new Uint8Array(readFileSync(path)));
      expect(err.reason).toContain(reason);
    }
    const path = writeRaw(store, "crc", [[headerLine("crc")], [entryLine(0)], [entryLine(1)]]);
    const bytes = new Uint8Array(readFileSync(path));
    const { records } = scanRecords(bytes);
    bytes[records[1]!.frameStart + 3]! ^= 0xff;
    writeFileSync(path, bytes);
    const err = await expectCorrupt(store.load("crc"), path, bytes);
    expect(err.reason).toContain("checksum mismatch");
  });

  test("blank lines are skipped, and errors name the line as a text editor counts it", async () => {
    const store = newStore();
    writeRaw(store, "blank", [[headerLine("blank"), ""], ["", entryLine(0), "  "], [entryLine(1)]]);
    expect((await store.load("blank")).entries.map((e) => e.n)).toEqual([0, 1]);
    const cases: [string, string[][], string][] = [
      [
        "blankjson",
        [[headerLine("blankjson"), ""], [entryLine(0), ""], ["{not json"]],
        "entry 1 (line 5) is not JSON",
      ],
      [
        "blankbad",
        [[headerLine("blankbad")], ["", "", entryLine(0)], [entryLine(7)]],
        "entry on line 5 has n=7",
      ],
      [
        "cut",
        [[headerLine("cut")], [entryLine(0)], [entryLine(1).slice(0, 20)]],
        "entry 1 (line 3) is not JSON",
      ],
      ["nohead", [["{oops"], [entryLine(0)]], "the header is not JSON"],
    ];
    for (const [id, groups, reason] of cases) {
      const path = writeRaw(store, id, groups);
      const err = await expectCorrupt(store.load(id), path, new Uint8Array(readFileSync(path)));
      expect(err.reason).toContain(reason);
    }
  });

  test("bytes that are not UTF-8", async () => {
    const store = newStore();
    const path = writeRaw(store, "latin1", [[headerLine("latin1")]]);
    const bad = Buffer.concat([
      encoder.encode(`${entryLine(0).slice(0, -3)}`),
      Buffer.from([0xe9]),
      encoder.encode('"}]}}\n'),
    ]);
    writeFileSync(path, Buffer.concat([readFileSync(path), encodeRecord(Bun.zstdCompressSync(bad))]));
    const err = await expectCorrupt(store.load("latin1"), path, new Uint8Array(readFileSync(path)));
    expect(err.reason).toContain("not UTF-8");
  });

  test("a file that is one bare zstd frame (as `zstd -dc f | zstd` leaves it) still loads", async () => {
    const store = newStore();
    const writer = await store.create({ ...HEADER, id: "bare" });
    await writer.append([userText("one"), userText("two")]);
    await writer.close();
    const text = Bun.zstdDecompressSync(readFileSync(writer.path));
    writeFileSync(writer.path, Bun.zstdCompressSync(text));
    expect((await store.load("bare")).entries.map((e) => e.n)).toEqual([0, 1]);
  });

  test("moving aside never replaces an earlier corrupt copy", async () => {
    const store = newStore();
    const moved: string[] = [];
    for (let i = 0; i < 3; i++) {
      Bun.spawnSync(["mkdir", "-p", store.dir]);
      writeFileSync(store.pathOf("again"), `garbage ${i}`);
      const err = (await store.load("again").catch((e: unknown) => e)) as CorruptSessionError;
      moved.push(err.movedTo);
    }
    expect(new Set(moved).size).toBe(3);
    expect(moved.map((p) => readFileSync(p, "utf8"))).toEqual(["garbage 0", "garbage 1", "garbage 2"]);
  });
});

describe("format versions", () => {
  test("migrateHeader passes version 1 through and refuses a newer one with a clear error", () => {
    const header = JSON.parse(headerLine("v1"));
    expect(migrateHeader(header)).toEqual(header);
    expect(() => migrateHeader({ ...header, version: 2 })).toThrow(
      "session v1 was written by a newer ion (session format version 2; this ion reads up to 1)",
    );
    expect(() => migrateHeader({ ...header, version: 0 })).toThrow();
    expect(() => migrateHeader({ ...header, version: undefined })).toThrow();
    expect(() => migrateHeader("nope")).toThrow();
  });

  test("a file of a newer version is refused and left exactly where and as it was", async () => {
    const store = newStore();
    const path = writeRaw(store, "future", [
      [headerLine("future", { version: 2 })],
      [JSON.stringify({ type: "hologram", n: 0, at: "t" })],
    ]);
    const before = new Uint8Array(readFileSync(path));
    for (const attempt of [() => store.load("future"), () => store.openForAppend("future")]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IonError);
      expect(err).not.toBeInstanceOf(CorruptSessionError);
      expect((err as IonError).message).toContain("written by a newer ion");
      expect(new Uint8Array(readFileSync(path))).toEqual(before);
    }
    // Even when the rest of the file does not look like this version's framing.
    writeFileSync(path, Buffer.concat([before, encoder.encode("future framing")]));
    await expect(store.load("future")).rejects.toThrow("written by a newer ion");
    expect(filesWith(store.dir, "corrupt")).toEqual([]);
    expect(existsSync(join(store.dir, "future.lock"))).toBe(false);
  });

  test("list skips a newer file with a warning; latestForCwd still finds it, so opening it says why", async () => {
    const store = newStore();
    writeRaw(store, "future", [[headerLine("future", { version: 3 })]]);
    const warnings: string[] = [];
    expect(await store.list({ onWarning: (w) => warnings.push(w) })).toEqual([]);
    expect(warnings).toEqual([
      "skipped session future: session future was written by a newer ion (session format version 3; this ion reads up to 1)",
    ]);
    expect(await store.list({ cwd: HEADER.cwd })).toEqual([]);
    expect(await store.latestForCwd(HEADER.cwd)).toBe("future");
    expect(await store.latestForCwd("/elsewhere")).toBeUndefined();
  });
});

describe("repacking", () => {
  test("reopening a session with many small records rewrites them as few; the decoded text is unchanged", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    const saved: SessionEntry[] = [];
    for (let i = 0; i < 120; i++)
      saved.push(...(await writer.append([userText(`question ${i} ${"w".repeat(i)}`)])));
    await writer.close();
    const before = zstdDecode(writer.path);
    const sizeBefore = statSync(writer.path).size;
    expect(scanRecords(new Uint8Array(readFileSync(writer.path))).records).toHaveLength(121);

    const { writer: again, loaded } = await store.openForAppend(writer.id);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.entries).toEqual(saved);
    expect(scanRecords(new Uint8Array(readFileSync(writer.path))).records).toHaveLength(2);
    expect(statSync(writer.path).size).toBeLessThan(sizeBefore);
    expect(zstdDecode(writer.path)).toBe(before);
    const more = await again.append([userText("after the repack")]);
    expect(more[0]!.n).toBe(120);
    await again.close();
    expect((await store.load(writer.id)).entries).toEqual([...saved, ...more]);
    expect(filesWith(store.dir, ".tmp")).toEqual([]);
  });

  test("few records are left alone; a repack leftover from a crash is removed", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    for (let i = 0; i < 5; i++) await writer.append([userText(`q${i}`)]);
    await writer.close();
    const bytes = new Uint8Array(readFileSync(writer.path));
    writeFileSync(`${writer.path}.99999.repack.tmp`, "half-written");
    const { writer: again } = await store.openForAppend(writer.id);
    await again.close();
    expect(new Uint8Array(readFileSync(writer.path))).toEqual(bytes);
    expect(filesWith(store.dir, ".tmp")).toEqual([]);
  });
});

describe("list, latestForCwd, resolveId, remove", () => {
  async function session(
    store: SessionStore,
    id: string,
    cwd: string,
    mtime: number,
    entries: NewEntry[] = [],
  ) {
    const writer = await store.create({ ...HEADER, id, cwd, title: `title ${id}` });
    if (entries.length > 0) await writer.append(entries);
    await writer.close();
    utimesSync(writer.path, mtime, mtime);
  }

  test("list is newest first, counts messages and tokens, filters by cwd, and skips unreadable files", async () => {
    const store = newStore();
    await session(store, "old", "/a", 1_000, [userText("q"), assistantText("a", { input: 100, output: 7 })]);
    await session(store, "new", "/b", 3_000);
    await session(store, "mid", "/a", 2_000, [
      userText("q"),
      assistantText("a", { input: 5, output: 1 }),
      { type: "model_change", provider: "p", model: "m" },
      assistantText("b", { input: 6, output: 2 }),
    ]);
    writeFileSync(store.pathOf("broken"), "not a session");
    writeFileSync(join(store.dir, "stray.txt"), "ignored");
    const warnings: string[] = [];
    const all = await store.list({ onWarning: (w) => warnings.push(w) });
    expect(all.map((s) => s.id)).toEqual(["new", "mid", "old"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("broken");
    expect(existsSync(store.pathOf("broken"))).toBe(true); // list never moves files
    const mid = all[1]!;
    expect(mid).toMatchObject({
      id: "mid",
      path: store.pathOf("mid"),
      updated_at: new Date(2_000_000).toISOString(),
      messages: 3,
      tokens: { input: 11, output: 3 },
      title: "title mid",
      cwd: "/a",
    });
    expect(mid.header.id).toBe("mid");
    expect((await store.list({ cwd: "/a" })).map((s) => s.id)).toEqual(["mid", "old"]);
    expect(await store.list({ cwd: "/nowhere" })).toEqual([]);
    expect(await new SessionStore(join(tempDir(), "missing")).list()).toEqual([]);
  });

  test("latestForCwd picks the most recently updated session of that directory", async () => {
    const store = newStore();
    expect(await store.latestForCwd("/a")).toBeUndefined();
    await session(store, "a1", "/a", 1_000);
    await session(store, "a2", "/a", 2_000);
    await session(store, "b1", "/b", 3_000);
    expect(await store.latestForCwd("/a")).toBe("a2");
    expect(await store.latestForCwd("/b")).toBe("b1");
    expect(await store.latestForCwd("/c")).toBeUndefined();
    // A newer file whose header cannot be read is offered, so opening it reports and moves it aside.
    writeFileSync(store.pathOf("zz"), "junk");
    utimesSync(store.pathOf("zz"), 4_000, 4_000);
    expect(await store.latestForCwd("/a")).toBe("zz");
  });

  test("resolveId: exact id, unique prefix, no match, several matches", async () => {
    const store = newStore();
    for (const id of ["0190aaaa-1", "0190aaaa-2", "0190bbbb-1"]) await session(store, id, "/a", 1_000);
    expect(await store.resolveId("0190aaaa-1")).toBe("0190aaaa-1");
    expect(await store.resolveId("0190b")).toBe("0190bbbb-1");
    await expect(store.resolveId("ffff")).rejects.toThrow("no session matches ffff");
    const err = await store.resolveId("0190a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IonError);
    expect((err as IonError).code).toBe("usage");
    expect((err as IonError).message).toBe("0190a matches 2 sessions: 0190aaaa-2, 0190aaaa-1");
    await expect(store.resolveId("")).rejects.toThrow("no session matches");
  });

  test("remove deletes the file, is a no-op when it is gone, and is refused while the session is open", async () => {
    const store = newStore();
    await session(store, "gone", "/a", 1_000);
    await store.remove("gone");
    expect(existsSync(store.pathOf("gone"))).toBe(false);
    await store.remove("gone");
    const writer = await store.create(HEADER);
    await expect(store.remove(writer.id)).rejects.toThrow("is in use by another ion process");
    expect(existsSync(writer.path)).toBe(true);
    await writer.close();
    await store.remove(writer.id);
    expect(filesWith(store.dir, writer.id)).toEqual([]);
  });

  test("forDataDir keeps sessions in <data>/sessions", () => {
    const data = tempDir();
    expect(SessionStore.forDataDir(data).dir).toBe(join(data, "sessions"));
    expect(SessionStore.forDataDir(data).pathOf("x")).toBe(join(data, "sessions", "x.jsonl.zst"));
  });

  test("list handles hundreds of sessions quickly", async () => {
    const store = new SessionStore(join(tempDir(), "sessions"), { codec: nativeCodec });
    const entries = [userText("q".repeat(200)), assistantText("a".repeat(800), { input: 1, output: 1 })];
    for (let i = 0; i < 300; i++) {
      const writer = await store.create({ ...HEADER, cwd: `/p${i % 7}` });
      for (let j = 0; j < 5; j++) await writer.append(entries);
      await writer.close();
    }
    const started = performance.now();
    const all = await store.list();
    const elapsed = performance.now() - started;
    expect(all).toHaveLength(300);
    expect(all.every((s) => s.messages === 10)).toBe(true);
    expect(elapsed).toBeLessThan(1_500);
    expect(await store.list({ cwd: "/p3" })).toHaveLength(43);
  });
});

test("truncating below the header is corruption, not a torn tail", async () => {
  const store = newStore();
  const writer = await store.create(HEADER);
  await writer.close();
  truncateSync(writer.path, 10);
  const bytes = new Uint8Array(readFileSync(writer.path));
  await expectCorrupt(store.load(writer.id), writer.path, bytes);
});
