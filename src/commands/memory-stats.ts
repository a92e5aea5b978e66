import { embeddingModelId } from "../memory/embeddings.ts";
import { type MemoryStats, memoryDbPath } from "../memory/store.ts";
import { byteSize, count } from "../util/numbers.ts";
import { parseStrict, tildePath } from "./_shared.ts";
import { statsArgs } from "./memory.ts";
import { MEMORY_TYPES, memoryConfig, memoryExists, openMemoryStore } from "./memory-common.ts";

const NOTHING_LEARNT: MemoryStats = {
  count: 0,
  valid: 0,
  bytes: 0,
  byType: { episodic: 0, semantic: 0, procedural: 0 },
  vectors: [],
  lastLearnedAt: null,
};

/** What recall ranks by when no embedding model is configured. */
export const NO_EMBEDDINGS = "none: BM25 + recency only";

/** `ion memory stats [--json]`: count, size, the embedding model and its vectors, the last learnt. */
export async function memoryStats(rawArgs: string[]): Promise<void> {
  const args = parseStrict("memory stats", rawArgs, statsArgs, 0);
  const { config } = await memoryConfig();
  const env = process.env;
  const store = memoryExists(env) ? openMemoryStore(env) : undefined;
  let stats: MemoryStats = NOTHING_LEARNT;
  try {
    if (store) stats = store.stats();
  } finally {
    store?.close();
  }
  const spec = config.memory?.embedding;
  const model = spec === undefined ? undefined : embeddingModelId(spec, config.memory?.embedding_dimensions);
  const embedded = stats.vectors.find((v) => v.model === model)?.count ?? 0;
  const enabled = config.memory?.enabled !== false;
  const lastLearned = stats.lastLearnedAt === null ? null : new Date(stats.lastLearnedAt).toISOString();
  if (args.json === true) {
    const json = {
      enabled,
      path: memoryDbPath(env),
      count: stats.count,
      valid: stats.valid,
      bytes: stats.bytes,
      by_type: stats.byType,
      embedding_model: model ?? null,
      embedded,
      vectors: stats.vectors,
      last_learned_at: lastLearned,
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  const types = MEMORY_TYPES.map((type) => `${count(stats.byType[type] ?? 0)} ${type}`).join(", ");
  const rows: [string, string][] = [
    ["memory", enabled ? "on" : "off (memory.enabled: false): nothing is learnt or recalled"],
    ["database", `${tildePath(memoryDbPath(env))} (${byteSize(stats.bytes)})`],
    [
      "memories",
      `${count(stats.count)} (${count(stats.valid)} valid, ${count(stats.count - stats.valid)} forgotten; ${types})`,
    ],
    [
      "embeddings",
      model === undefined ? NO_EMBEDDINGS : `${model} (${count(embedded)} of ${count(stats.count)} embedded)`,
    ],
    ["last learnt", lastLearned ?? "never"],
  ];
  const lines = rows.map(([label, value]) => `${`${label}:`.padEnd(13)}${value}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}
