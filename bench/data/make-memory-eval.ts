/**
 * Writes bench/data/memory-eval.json, the dataset of bench/memory-eval.ts: the facts of
 * memory-eval-facts.ts and the chatter of memory-eval-chatter.ts spread over 40 sessions, stored as
 * ion's learning stores a turn (`user: …`, one line per tool outcome, `assistant: …`), with the
 * questions and the ids of the memories that answer each. A seeded PRNG makes it the same every run:
 *
 *   bun bench/data/make-memory-eval.ts          rewrite the JSON
 *   bun bench/data/make-memory-eval.ts --check  exit 1 if the committed JSON differs from what this writes
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ChatterTurn, ONE_OFFS, SLOTS, TEMPLATES } from "./memory-eval-chatter.ts";
import { FACTS, type QueryKind } from "./memory-eval-facts.ts";

export const DATASET_PATH = join(import.meta.dir, "memory-eval.json");

const SEED = 23;
const SESSIONS = 40;
/** Chatter is added until the dataset holds this many memories. */
const TARGET_MEMORIES = 540;
const START = Date.UTC(2026, 8, 1, 8, 0, 0);
const DAY = 86_400_000;

export interface EvalMemory {
  id: string;
  session: string;
  /** ms since epoch: when it was said. */
  at: number;
  content: string;
}

export interface EvalQuery {
  id: string;
  text: string;
  kind: QueryKind;
  /** Ids of the memories that answer it. */
  relevant: string[];
}

export interface EvalDataset {
  about: string;
  seed: number;
  sessions: number;
  memories: EvalMemory[];
  queries: EvalQuery[];
}

/** mulberry32: small, fast and the same everywhere. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Turn extends ChatterTurn {
  /** The fact it states, for the queries' relevant ids. */
  fact?: string;
}

export function buildDataset(): EvalDataset {
  const random = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const shuffle = <T>(items: T[]): T[] => {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  };
  /** One value per slot name within a turn, so "{module}" reads the same in its user line and answer. */
  const fill = (turn: ChatterTurn): ChatterTurn => {
    const chosen = new Map<string, string>();
    const text = (line: string) =>
      line.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (!chosen.has(name)) chosen.set(name, pick(SLOTS[name] ?? [name]));
        return chosen.get(name)!;
      });
    return {
      user: text(turn.user),
      assistant: text(turn.assistant),
      ...(turn.tools ? { tools: turn.tools.map(text) } : {}),
    };
  };
  const size = (turn: ChatterTurn) => 2 + (turn.tools?.length ?? 0);

  const sessions: Turn[][] = Array.from({ length: SESSIONS }, () => []);
  for (const fact of FACTS) sessions[fact.session]!.push({ ...fact, fact: fact.key });
  for (const turn of ONE_OFFS) sessions[Math.floor(random() * SESSIONS)]!.push(fill(turn));
  let total = sessions.flat().reduce((sum, turn) => sum + size(turn), 0);
  // Templates are dealt from a shuffled deck, so each kind of turn recurs about as often as the others.
  let deck: ChatterTurn[] = [];
  while (total < TARGET_MEMORIES) {
    if (deck.length === 0) deck = shuffle([...TEMPLATES]);
    const turn = fill(deck.pop()!);
    // Fill the thinnest sessions first, as a real week has no empty days.
    const thinnest = Math.min(...sessions.map((s) => s.length));
    const candidates = sessions.filter((s) => s.length <= thinnest + 1);
    pick(candidates).push(turn);
    total += size(turn);
  }

  const memories: EvalMemory[] = [];
  const factIds = new Map<string, string[]>();
  sessions.forEach((turns, index) => {
    const session = `s${String(index + 1).padStart(2, "0")}`;
    let at = START + Math.round(index * 1.6 * DAY) + Math.floor(random() * 8 * 3_600_000);
    for (const turn of shuffle(turns)) {
      at += 60_000 + Math.floor(random() * 8 * 60_000);
      const lines = [`user: ${turn.user}`, ...(turn.tools ?? []), `assistant: ${turn.assistant}`];
      for (const content of lines) {
        at += 5_000 + Math.floor(random() * 35_000);
        const id = `m${String(memories.length + 1).padStart(3, "0")}`;
        memories.push({ id, session, at, content });
        // The user's words and ion's answer state the fact; tool lines do not.
        if (turn.fact && !turn.tools?.includes(content))
          factIds.set(turn.fact, [...(factIds.get(turn.fact) ?? []), id]);
      }
    }
  });

  const queries: EvalQuery[] = [];
  for (const fact of FACTS) {
    for (const query of fact.queries ?? []) {
      const relevant = (query.facts ?? [fact.key]).flatMap((key) => factIds.get(key) ?? []);
      const id = `q${String(queries.length + 1).padStart(2, "0")}`;
      queries.push({ id, text: query.text, kind: query.kind, relevant });
    }
  }
  return {
    about:
      "Recall-quality dataset of ion's memory, written for the project: one developer's turns over 40 sessions " +
      "(three projects, preferences, small talk, tool outcomes, facts later corrected), generated by " +
      "bench/data/make-memory-eval.ts. A query's relevant ids are the memories that answer it; for a corrected " +
      "fact only the newer one counts.",
    seed: SEED,
    sessions: SESSIONS,
    memories,
    queries,
  };
}

/** JSON as the project's formatter (biome) writes it: two-space indent, short id lists on one line. */
export function datasetText(dataset: EvalDataset): string {
  const text = JSON.stringify(dataset, null, 2).replace(
    /\[\s*("m\d+"(?:,\s*"m\d+")*)\s*\]/g,
    (_, ids: string) => `[${ids.split(/,\s*/).join(", ")}]`,
  );
  return `${text}\n`;
}

if (import.meta.main) {
  const text = datasetText(buildDataset());
  if (process.argv.includes("--check")) {
    const same = readFileSync(DATASET_PATH, "utf8") === text;
    console.log(
      same
        ? "memory-eval.json is up to date"
        : "memory-eval.json differs: run bun bench/data/make-memory-eval.ts",
    );
    process.exit(same ? 0 : 1);
  }
  writeFileSync(DATASET_PATH, text);
  const dataset = JSON.parse(text) as EvalDataset;
  const kinds = Object.groupBy(dataset.queries, (q) => q.kind);
  console.log(
    `${dataset.memories.length} memories in ${dataset.sessions} sessions, ${dataset.queries.length} queries ` +
      `(${Object.entries(kinds)
        .map(([kind, list]) => `${list?.length} ${kind}`)
        .join(", ")}) → ${DATASET_PATH}`,
  );
}
