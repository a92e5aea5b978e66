/**
 * Crash safety: a child saves turns in a tight loop and is killed with SIGKILL at a random instant,
 * over and over. Every save it reported must still be there, and the file must load (a torn tail is
 * the only acceptable complaint) and take further saves.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import type { SessionEntry } from "../../src/history/schema.ts";
import { SessionStore } from "../../src/history/store.ts";
import { filesWith, LineReader, SUPPORT_DIR, userText, useTempDirs } from "./support/fixtures.ts";

const tempDir = useTempDirs("ion-crash-");
const RUNS = 30;
const PARALLEL = 6;

interface Outcome {
  dir: string;
  id: string | undefined;
  saved: number;
}

/**
 * One child: every fifth is killed at a random instant from its start (maybe mid-create), the rest
 * while saving; odd runs reopen (and so repack) as they go; every third saves ~1 MB at a time, so
 * that some kills cut a write in half.
 */
async function crashOnce(run: number): Promise<Outcome> {
  const dir = tempDir();
  const flags = run % 2 === 1 ? ["--reopen-every", String(20 + (run % 7))] : [];
  if (run % 3 === 2) flags.push("--big");
  const child = Bun.spawn([process.execPath, join(SUPPORT_DIR, "append-loop.ts"), dir, ...flags], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = new LineReader(child.stdout);
  try {
    if (run % 5 === 0) await Bun.sleep(Math.random() * 600);
    else {
      await out.next((line) => line.startsWith("created "));
      await Bun.sleep(Math.random() * 300);
    }
  } finally {
    child.kill("SIGKILL");
  }
  await child.exited;
  await out.done;
  expect(child.signalCode).toBe("SIGKILL");
  const created = out.lines.find((line) => line.startsWith("created "));
  const saves = out.lines.filter((line) => line.startsWith("saved ")).map((line) => Number(line.slice(6)));
  return { dir, id: created?.slice(8), saved: saves.length === 0 ? 0 : Math.max(...saves) };
}

function textOf(entry: SessionEntry | undefined): string {
  return entry?.type === "message" ? JSON.stringify(entry.message.content) : "";
}

async function check({ dir, id, saved }: Outcome): Promise<void> {
  const store = new SessionStore(dir);
  if (id === undefined) {
    // Killed before `create` returned: no session, or a complete header with no entries.
    for (const summary of await store.list()) expect((await store.load(summary.id)).entries).toEqual([]);
    return;
  }
  const loaded = await store.load(id);
  for (const warning of loaded.warnings) expect(warning).toContain("torn tail");
  const { entries } = loaded;
  // Every reported save is there, in order; at most one more (saved, killed before reporting it).
  expect(entries.length).toBeGreaterThanOrEqual(3 * saved);
  expect(entries.length).toBeLessThanOrEqual(3 * (saved + 1));
  expect(entries.length % 3).toBe(0);
  for (let k = 1; k <= saved; k++) {
    const at = 3 * (k - 1);
    expect(textOf(entries[at])).toContain(`"turn ${k}"`);
    expect(textOf(entries[at + 1])).toContain(`"call-${k}"`);
    expect(textOf(entries[at + 2])).toContain(`"tool_use_id":"call-${k}"`);
  }
  // It takes further saves; the repaired file then loads cleanly.
  const { writer, loaded: opened } = await store.openForAppend(id);
  for (const warning of opened.warnings) expect(warning).toMatch(/torn tail.*repaired/);
  expect(writer.nextN).toBe(entries.length);
  await writer.append([userText("after the crash")]);
  await writer.close();
  const again = await store.load(id);
  expect(again.warnings).toEqual([]);
  expect(again.entries).toHaveLength(entries.length + 1);
  expect(filesWith(dir, "corrupt")).toEqual([]);
}

test(`kill -9 at random instants (${RUNS} runs) never loses a reported save`, async () => {
  const outcomes: Outcome[] = [];
  for (let wave = 0; wave < RUNS; wave += PARALLEL) {
    const runs = Array.from({ length: Math.min(PARALLEL, RUNS - wave) }, (_, i) => crashOnce(wave + i));
    outcomes.push(...(await Promise.all(runs)));
  }
  for (const outcome of outcomes) await check(outcome);
  // The runs did exercise the store: most got well into their loop.
  expect(outcomes.filter((o) => o.saved > 0).length).toBeGreaterThan(RUNS / 2);
}, 30_000);
