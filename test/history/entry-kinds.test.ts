/**
 * The entry kinds extensions build on — context messages and extension state — and entries of a type
 * this ion does not know, which a newer ion or an extension may have written: real files in temp dirs,
 * decoded with the zstd CLI as a user would.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { nativeCodec } from "../../src/history/codec.ts";
import { extensionStatesOf, latestExtensionState } from "../../src/history/extension-state.ts";
import { scanRecords } from "../../src/history/frames.ts";
import type { NewEntry, SessionEntry } from "../../src/history/schema.ts";
import { CorruptSessionError, SessionStore } from "../../src/history/store.ts";
import { modelView } from "../../src/history/view.ts";
import { linesRecord } from "../../src/history/writer.ts";
import type { UserMessage } from "../../src/providers/types.ts";
import { assistantText, userText, useTempDirs, ZSTD_CLI, zstdDecode } from "./support/fixtures.ts";

const tempDir = useTempDirs("ion-entry-kinds-");
const HEADER = {
  cwd: "/example/project",
  provider: "anthropic",
  model: "claude-x",
  title: "Plan the release",
};
const AT = "2026-02-01T12:00:00.000Z";

function newStore(): SessionStore {
  return new SessionStore(join(tempDir(), "sessions"));
}

const plain = (text: string): UserMessage => ({ role: "user", content: [{ type: "text", text }] });

function contextMessage(source: string, text: string): NewEntry {
  return { type: "context_message", source, message: plain(text) };
}

/** Appends lines to a closed session file as one record, the way ion frames its saves. */
function appendLines(path: string, values: unknown[]): void {
  appendFileSync(path, linesRecord(nativeCodec, values));
}

/** The decoded file, one parsed value per line (header first), as `zstd -dc` prints it. */
function fileLines(path: string): Record<string, unknown>[] {
  return zstdDecode(path)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function corruptCopies(store: SessionStore): string[] {
  return readdirSync(store.dir).filter((name) => name.includes("corrupt"));
}

test("the zstd CLI is here, so these tests read the files as a user's `zstd -dc` does", () => {
  expect(ZSTD_CLI).not.toBeNull();
});

describe("entries of a type this ion does not know", () => {
  test("are kept on disk, skipped on load with one warning, never corruption; appending numbers on after them", async () => {
    const store = newStore();
    const first = await store.create(HEADER);
    const id = first.id;
    await first.append([userText("ship it")]);
    await first.close();
    const unknown = [
      { type: "plan_v9", n: 1, at: AT, steps: ["tag", "build"] },
      { type: "plan_v9", n: 2, at: AT, steps: ["tag"] },
      { type: "memory_index", n: 3, at: AT, keys: { release: 1 } },
    ];
    appendLines(first.path, unknown);

    const loaded = await store.load(id);
    expect(loaded.entries.map((e) => [e.n, e.type])).toEqual([[0, "message"]]);
    // Not a warning on every load: a note, which run and chat say with -v only.
    expect(loaded.warnings).toEqual([]);
    expect(loaded.notes).toHaveLength(1);
    expect(loaded.notes?.[0]).toContain(`session ${id}: skipped 3 entries of types this ion does not know`);
    expect(loaded.notes?.[0]).toContain(`"plan_v9" ×2`);
    expect(loaded.notes?.[0]).toContain(`"memory_index"`);
    expect(loaded.notes?.[0]).toContain("they stay in the file");
    expect(existsSync(first.path)).toBe(true);
    expect(corruptCopies(store)).toEqual([]);

    const { writer, loaded: reopened } = await store.openForAppend(id);
    expect(reopened.notes).toEqual(loaded.notes);
    expect(writer.nextN).toBe(4);
    const [answer] = await writer.append([assistantText("Shipped.")]);
    expect(answer!.n).toBe(4);
    await writer.close();

    const lines = fileLines(first.path);
    expect(lines.map((l) => l.type)).toEqual([
      "session",
      "message",
      "plan_v9",
      "plan_v9",
      "memory_index",
      "message",
    ]);
    expect(lines.slice(2, 5)).toEqual(unknown);
    expect(lines.map((l) => l.n)).toEqual([undefined, 0, 1, 2, 3, 4]);
    const again = await store.load(id);
    expect(again.entries.map((e) => e.n)).toEqual([0, 4]);
    expect(modelView(again.entries).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  test("a single one is named in the singular, and a type name's control characters never reach the terminal", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    await writer.close();
    appendLines(writer.path, [{ type: "evil\u001b[2J\u009bname", n: 0, at: AT }]);
    const loaded = await store.load(writer.id);
    expect(loaded.notes).toEqual([
      `session ${writer.id}: skipped an entry of a type this ion does not know ("evil?[2J?name"), written by a newer ion or an extension; it stays in the file`,
    ]);
  });

  test("repacking a file of many small saves keeps them byte for byte in the decoded text", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    for (let i = 0; i < 20; i++) await writer.append([userText(`step ${i}`)]);
    await writer.close();
    const stranger = { type: "plan_v9", n: 20, at: AT, note: "from a newer ion" };
    appendLines(writer.path, [stranger]);
    const more = await store.openForAppend(writer.id);
    for (let i = 21; i < 40; i++) await more.writer.append([userText(`step ${i}`)]);
    await more.writer.close();
    const before = zstdDecode(writer.path);
    const { writer: repacked } = await store.openForAppend(writer.id);
    await repacked.close();
    expect(scanRecords(new Uint8Array(readFileSync(writer.path))).records.length).toBeLessThanOrEqual(2);
    expect(zstdDecode(writer.path)).toBe(before);
    expect(fileLines(writer.path)[21]).toEqual(stranger);
    expect((await store.load(writer.id)).entries.map((e) => e.n)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => i),
      ...Array.from({ length: 19 }, (_, i) => 21 + i),
    ]);
  });

  test("listing and searching read such a file as usual", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    await writer.append([userText("find the release notes")]);
    await writer.close();
    appendLines(writer.path, [{ type: "plan_v9", n: 1, at: AT }]);
    const warnings: string[] = [];
    const listed = await store.list({ onWarning: (w) => warnings.push(w) });
    expect(listed.map((s) => [s.id, s.messages])).toEqual([[writer.id, 1]]);
    const found: string[] = [];
    await store.search([writer.id], {
      pattern: /release notes/i,
      onWarning: (w) => warnings.push(w),
      onMatch: (m) => {
        found.push(m.id);
      },
    });
    expect(found).toEqual([writer.id]);
    expect(warnings).toEqual([]);
  });

  test("an entry of a known type that fails validation is still corruption, and so is a line without a type", async () => {
    const cases: [string, Record<string, unknown>[], string][] = [
      [
        "context-unmarked",
        [{ type: "context_message", n: 1, at: AT, source: "memory", message: plain("recall") }],
        "entry 1",
      ],
      ["state-unnamed", [{ type: "extension_state", n: 1, at: AT, data: {} }], "entry 1"],
      ["no-type", [{ n: 1, at: AT, steps: [] }], "entry 1"],
      ["second-header", [{ type: "session", version: 1, id: "x", n: 1 }], "entry 1"],
      // A skipped entry still has its place: the next one must be numbered after it.
      [
        "numbered-over-unknown",
        [
          { type: "plan_v9", n: 1, at: AT },
          { type: "message", n: 1, at: AT, message: plain("late") },
        ],
        "has n=1, expected 2",
      ],
    ];
    for (const [label, bad, reason] of cases) {
      const store = newStore();
      const writer = await store.create({ ...HEADER, id: label });
      await writer.append([userText("first")]);
      await writer.close();
      appendLines(writer.path, bad);
      const original = new Uint8Array(readFileSync(writer.path));
      const err = await store.load(label).catch((e: unknown) => e);
      expect(err, label).toBeInstanceOf(CorruptSessionError);
      const corrupt = err as CorruptSessionError;
      expect(corrupt.reason, label).toContain(reason);
      expect(existsSync(writer.path), label).toBe(false);
      expect(new Uint8Array(readFileSync(corrupt.movedTo)), label).toEqual(original);
    }
  });
});

describe("context messages", () => {
  test("round trip: saved marked with their source, loaded in file order, in the model's view as user messages", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    const saved = await writer.append([
      contextMessage("memory", "The user prefers small commits."),
      userText("tag the release"),
    ]);
    // A user message that already carries the mark is saved as a context message too.
    const hooked = await writer.append([
      {
        type: "message",
        message: { ...plain("CI is green."), context: { source: "hook:UserPromptSubmit" } },
      },
      assistantText("Tagged v1.2.0."),
    ]);
    await writer.close();
    expect(saved[0]).toEqual({
      type: "context_message",
      n: 0,
      at: saved[0]!.at,
      source: "memory",
      message: { ...plain("The user prefers small commits."), context: { source: "memory" } },
    });
    expect(hooked[0]).toMatchObject({ type: "context_message", n: 2, source: "hook:UserPromptSubmit" });

    const lines = fileLines(writer.path);
    expect(Object.keys(lines[1]!)).toEqual(["type", "n", "at", "source", "message"]);
    expect(lines.slice(1).map((l) => l.type)).toEqual([
      "context_message",
      "message",
      "context_message",
      "message",
    ]);
    expect(lines[3]!.message).toEqual({
      ...plain("CI is green."),
      context: { source: "hook:UserPromptSubmit" },
    });

    const loaded = await store.load(writer.id);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.entries).toEqual([...saved, ...hooked]);
    const view = modelView(loaded.entries);
    expect(view.ns).toEqual([0, 1, 2, 3]);
    expect(view.messages.map((m) => (m.role === "user" ? (m.context?.source ?? "user") : m.role))).toEqual([
      "memory",
      "user",
      "hook:UserPromptSubmit",
      "assistant",
    ]);
  });

  test("the model's view respects a compaction's first_kept for context messages as for any message", () => {
    /** A message entry of the fixtures' kind, numbered. */
    const entry = (n: number, e: NewEntry): SessionEntry => {
      if (e.type !== "message") throw new Error("a message entry is expected here");
      return { ...e, n, at: AT };
    };
    const context = (n: number, text: string): SessionEntry => ({
      type: "context_message",
      n,
      at: AT,
      source: "memory",
      message: { ...plain(text), context: { source: "memory" } },
    });
    const compaction = (n: number, firstKept: number): SessionEntry => ({
      type: "compaction",
      n,
      at: AT,
      trigger: "manual",
      summary: "Earlier work.",
      first_kept: firstKept,
      tokens_before: 100,
      tokens_after: 10,
      method: "summary",
    });
    const base: SessionEntry[] = [
      context(0, "old recall"),
      entry(1, userText("first")),
      entry(2, assistantText("one")),
      context(3, "new recall"),
      entry(4, userText("second")),
      entry(5, assistantText("two")),
    ];
    const texts = (entries: SessionEntry[]) =>
      modelView(entries).messages.map((m) => (m.content[0]?.type === "text" ? m.content[0].text : ""));
    expect(texts([...base, compaction(6, 3)]).slice(1)).toEqual(["new recall", "second", "two"]);
    expect(texts([...base, compaction(6, 4)]).slice(1)).toEqual(["second", "two"]);
    const view = modelView([...base, compaction(6, 3)]);
    expect(view.ns).toEqual([-1, 3, 4, 5]);
    expect(view.messages[1]).toMatchObject({ role: "user", context: { source: "memory" } });
  });
});

describe("extension state", () => {
  test("round trip; never in the model's view; the latest state of an extension and the states under a tool call", async () => {
    const store = newStore();
    const writer = await store.create(HEADER);
    const state = (extension: string, data: unknown, parent?: string): NewEntry => ({
      type: "extension_state",
      extension,
      data,
      ...(parent ? { parent_tool_use_id: parent } : {}),
    });
    await writer.append([
      userText("plan and delegate"),
      state("plan", { steps: ["tag"], done: 0 }),
      state("subagent", { transcript: ["read notes"] }, "toolu_A"),
      state("subagent", { transcript: ["wrote summary"] }, "toolu_B"),
    ]);
    await writer.append([
      state("plan", { steps: ["tag", "build"], done: 1 }),
      state("subagent", { transcript: ["read notes", "answered"] }, "toolu_A"),
      state("plan", { steps: ["inner"] }, "toolu_A"),
      assistantText("Done."),
    ]);
    await writer.close();

    const lines = fileLines(writer.path);
    expect(lines[3]).toEqual({
      type: "extension_state",
      n: 2,
      at: lines[3]!.at,
      extension: "subagent",
      data: { transcript: ["read notes"] },
      parent_tool_use_id: "toolu_A",
    });

    const { entries, warnings } = await store.load(writer.id);
    expect(warnings).toEqual([]);
    expect(modelView(entries).ns).toEqual([0, 7]);

    expect(latestExtensionState(entries, "plan")).toMatchObject({
      n: 4,
      data: { steps: ["tag", "build"], done: 1 },
    });
    expect(latestExtensionState(entries, "plan", "toolu_A")?.data).toEqual({ steps: ["inner"] });
    expect(latestExtensionState(entries, "subagent", "toolu_A")?.data).toEqual({
      transcript: ["read notes", "answered"],
    });
    expect(latestExtensionState(entries, "subagent")).toBeUndefined();
    expect(latestExtensionState(entries, "memory")).toBeUndefined();
    expect(extensionStatesOf(entries, "toolu_A").map((e) => [e.n, e.extension])).toEqual([
      [2, "subagent"],
      [5, "subagent"],
      [6, "plan"],
    ]);
    expect(extensionStatesOf(entries, "toolu_C")).toEqual([]);
  });
});
