/**
 * Session store speed (spec §8): builds a synthetic 10 000-message session (~5 MB of JSON: prompts,
 * thinking, tool calls with their results, answers, run ends) through the store in a temp dir, then
 * times, as medians over many repetitions:
 *
 *   - appending one turn (3 entries, one save, synced)  bar < 1 ms
 *   - a full `load`                                      bar < 25 ms
 *   - compaction bookkeeping: `modelView(entries)` + appending a compaction entry   bar < 50 ms
 *
 * with the native codec and again with the zstd-codec fallback. The session is written the way the
 * recorder writes it, one save per message. `load` is timed on the file as written (one small record
 * per save) and, for each codec, once it has been reopened — opening for appending repacks small
 * records, which is how every later `ion run -c` finds the file. A load in a fresh process (JIT and
 * schema compilation included) is printed for information. Prints PASS/MISS against each bar and
 * exits 0 whatever the result. Usage: `bun bench/history.ts [--messages N] [--rounds N]`
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Codec, loadFallbackCodec, nativeCodec } from "../src/history/codec.ts";
import type { NewEntry } from "../src/history/schema.ts";
import { SessionStore } from "../src/history/store.ts";
import { modelView } from "../src/history/view.ts";
import { recordSummary, type SummaryRow, verdict } from "./lib.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const MESSAGES = option("--messages", 10_000);
const ROUNDS = option("--rounds", 50);

const BARS = { append: 1, load: 25, compaction: 50 } as const;
const summary: SummaryRow[] = [];

// A small seeded generator, so every run builds the same session.
let seed = 0x2545f491;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const WORDS = (
  "the a to of and in is it that for on with as this be are file function test error type value " +
  "return const import export session store append load frame zstd header entry model provider " +
  "message tool result user assistant config path directory write read change fix bug update build " +
  "should would could because when then also check run command output line code"
).split(" ");
const CODE = [
  "export function parse(input: string): Result {",
  "  const lines = input.split('\\n').filter(Boolean);",
  "  for (const line of lines) {",
  "    if (line.startsWith('#')) continue;",
  "    result.push(JSON.parse(line));",
  "  }",
  "  return { ok: true, value: result };",
  "}",
  "import { join } from 'node:path';",
  "  throw new Error('unexpected token at ' + offset);",
];

function prose(chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = pick(WORDS);
    out.push(word);
    length += word.length + 1;
  }
  return `${out.join(" ")}.`;
}

function code(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${i + 1}\t${pick(CODE)}`).join("\n");
}

const usage = () => ({
  input_tokens: Math.floor(random() * 5000),
  output_tokens: Math.floor(random() * 800),
  cache_read_input_tokens: Math.floor(random() * 20_000),
  cache_creation_input_tokens: 0,
});

let toolCounter = 0;

/** One turn as the recorder saves it: a prompt, tool rounds, an answer, a run end — one save per message. */
function turn(): NewEntry[][] {
  const saves: NewEntry[][] = [
    [{ type: "message", message: { role: "user", content: [{ type: "text", text: prose(110) }] } }],
  ];
  const rounds = 1 + Math.floor(random() * 3);
  for (let r = 0; r < rounds; r++) {
    const id = `toolu_${(toolCounter++).toString(36).padStart(8, "0")}`;
    const name = pick(["read_file", "grep", "edit_file", "bash", "glob"]);
    saves.push([
      {
        type: "message",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: prose(120), signature: "sig" },
            { type: "text", text: prose(50) },
            {
              type: "tool_use",
              id,
              name,
              input: { path: `src/${pick(WORDS)}/${pick(WORDS)}.ts`, limit: 200 },
            },
          ],
        },
        stop_reason: "tool_use",
        usage: usage(),
      },
    ]);
    saves.push([
      {
        type: "message",
        message: {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: id,
              content: code(4 + Math.floor(random() * 12)),
              is_error: false,
            },
          ],
        },
      },
    ]);
  }
  saves.push([
    {
      type: "message",
      message: { role: "assistant", content: [{ type: "text", text: prose(300) }] },
      stop_reason: "end_turn",
      usage: usage(),
    },
  ]);
  return saves;
}

/** One turn in ONE save, as the append benchmark times it: prompt, answer, run end. */
function oneSaveTurn(): NewEntry[] {
  return [
    { type: "message", message: { role: "user", content: [{ type: "text", text: prose(160) }] } },
    {
      type: "message",
      message: { role: "assistant", content: [{ type: "text", text: prose(400) }] },
      stop_reason: "end_turn",
      usage: usage(),
    },
    {
      type: "run_end",
      subtype: "success",
      num_turns: 1,
      usage: usage(),
      total_cost_usd: 0.0123,
      errors: [],
    },
  ];
}

async function build(store: SessionStore): Promise<{ id: string; messages: number; seconds: number }> {
  const started = performance.now();
  const writer = await store.create({
    cwd: "/bench",
    provider: "anthropic",
    model: "claude",
    title: "bench",
  });
  let messages = 0;
  while (messages < MESSAGES) {
    for (const save of turn()) {
      await writer.append(save);
      messages += save.length;
    }
    await writer.append([
      { type: "run_end", subtype: "success", num_turns: 3, usage: usage(), total_cost_usd: null, errors: [] },
    ]);
  }
  await writer.close();
  return { id: writer.id, messages, seconds: (performance.now() - started) / 1000 };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function time(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

/** Prints one figure against its bar; `name` also puts it in the summary (bench/all.ts). */
function report(label: string, ms: number, bar: number, name?: string): void {
  console.log(
    `  ${label.padEnd(34)} ${ms.toFixed(2).padStart(8)} ms   (bar < ${bar} ms)  ${verdict(ms < bar)}`,
  );
  if (name)
    summary.push({
      bench: "history",
      name,
      value: `${ms.toFixed(2)} ms`,
      floor: "",
      target: `< ${bar} ms`,
      pass: ms < bar,
    });
}

async function measure(store: SessionStore, id: string, codec: Codec): Promise<void> {
  console.log(`\ncodec: ${codec.name}`);
  const named = (what: string) => `${what} (${codec.name}${codec.name === "native" ? "" : " fallback"})`;
  report(
    "load (full, validated)",
    await time(ROUNDS, () => store.load(id)),
    BARS.load,
    named("load, repacked"),
  );
  const { writer, loaded } = await store.openForAppend(id);
  try {
    report(
      "append one turn (3 entries, synced)",
      await time(ROUNDS * 4, async () => {
        await writer.append(oneSaveTurn());
        await writer.sync();
      }),
      BARS.append,
      named("append one turn"),
    );
    const entries = loaded.entries;
    report(
      "compaction bookkeeping",
      await time(ROUNDS, async () => {
        const view = modelView(entries);
        const firstKept = view.ns[Math.floor(view.ns.length / 2)] ?? 0;
        await writer.append([
          {
            type: "compaction",
            trigger: "auto",
            summary: prose(2000),
            first_kept: Math.max(0, firstKept),
            tokens_before: 150_000,
            tokens_after: 60_000,
            method: "summary",
          },
        ]);
      }),
      BARS.compaction,
      named("compaction bookkeeping"),
    );
  } finally {
    await writer.close();
  }
}

/** `load` timed inside a fresh `bun` process: what one `ion run -c` pays, JIT and schema compilation included. */
async function coldLoad(dir: string, id: string): Promise<number> {
  const probe = join(dir, "cold-load.ts");
  const store = JSON.stringify(join(import.meta.dir, "../src/history/store.ts"));
  await Bun.write(
    probe,
    `import { SessionStore } from ${store};\n` +
      "const started = performance.now();\n" +
      `await new SessionStore(${JSON.stringify(dir)}).load(${JSON.stringify(id)});\n` +
      "console.log(performance.now() - started);\n",
  );
  const samples: number[] = [];
  for (let i = 0; i < 7; i++) {
    const run = Bun.spawnSync([process.execPath, probe]);
    samples.push(run.exitCode === 0 ? Number(run.stdout.toString()) : Number.NaN);
  }
  return median(samples);
}

const dir = mkdtempSync(join(tmpdir(), "ion-bench-history-"));
try {
  const native = new SessionStore(dir, { codec: nativeCodec });
  const built = await build(native);
  const path = native.pathOf(built.id);
  const json = Bun.spawnSync(["zstd", "-dc", path]);
  const jsonBytes = json.exitCode === 0 ? json.stdout.length : Number.NaN;
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  console.log(
    `session: ${built.messages} messages written in ${built.seconds.toFixed(1)} s, one save per message`,
  );
  console.log(`JSON Lines: ${Number.isNaN(jsonBytes) ? "? (no zstd CLI)" : mb(jsonBytes)}`);
  console.log(`rounds: ${ROUNDS} (append: ${ROUNDS * 4}); figures are medians\n`);

  // As written in one sitting: one small record per save.
  console.log(`file as written: ${mb(statSync(path).size)}`);
  report(
    "load (full, validated)",
    await time(ROUNDS, () => native.load(built.id)),
    BARS.load,
    `load ${MESSAGES.toLocaleString("en")} messages, as written`,
  );
  // Opening it for appending repacks the small records, as every later `ion run -c` finds it.
  const opened = await native.openForAppend(built.id);
  await opened.writer.close();
  console.log(`file once reopened (repacked): ${mb(statSync(path).size)}`);

  console.log(
    `  ${"load in a fresh process (info)".padEnd(34)} ${(await coldLoad(dir, built.id)).toFixed(2).padStart(8)} ms   (includes warming up)`,
  );

  // The timed appends and compactions grow the file; each codec starts from a copy of the same session.
  const copy = join(dir, "copy.jsonl.zst.orig");
  await Bun.write(copy, Bun.file(path));
  await measure(native, built.id, nativeCodec);
  await Bun.write(path, Bun.file(copy));
  const fallback = await loadFallbackCodec();
  await measure(new SessionStore(dir, { codec: fallback }), built.id, fallback);
  recordSummary(summary);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
