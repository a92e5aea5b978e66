import { IonError } from "../errors.ts";
import type { MemoryType } from "../memory/types.ts";
import { colorEnabled, createStyle } from "../ui/style.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { parseChoice, parseStrict } from "./_shared.ts";
import { forgetArgs, listArgs } from "./memory.ts";
import {
  MEMORY_TYPES,
  memoryExists,
  memoryItem,
  memorySummary,
  openMemoryStore,
  parseDate,
  parseLimit,
  requireMemory,
  SHORT_ID_MIN,
} from "./memory-common.ts";
import { shortIds } from "./sessions-list.ts";

/** `ion memory list [--type T] [--since DATE] [--all] [--limit N] [--json]`: newest first. */
export async function listMemories(rawArgs: string[]): Promise<void> {
  const args = parseStrict("memory list", rawArgs, listArgs, 0);
  const type =
    args.type === undefined ? undefined : parseChoice<MemoryType>("--type", args.type, MEMORY_TYPES);
  const since = args.since === undefined ? undefined : parseDate("--since", args.since, "start");
  const limit = parseLimit(args.limit, 20);
  const store = memoryExists() ? openMemoryStore() : undefined;
  try {
    const memories = store?.list({ type, since, includeEnded: args.all === true, limit }) ?? [];
    if (args.json === true) {
      process.stdout.write(`${JSON.stringify(memories.map(memoryItem), null, 2)}\n`);
      return;
    }
    if (memories.length === 0) {
      process.stderr.write("no memories yet: ion learns from every saved turn (see `ion memory --help`)\n");
      return;
    }
    const style = createStyle(colorEnabled(process.stdout.isTTY === true));
    const ids = shortIds(
      memories.map((m) => m.id),
      SHORT_ID_MIN,
    );
    const width = Math.max(40, (process.stdout.columns ?? 120) - 44);
    for (const memory of memories)
      process.stdout.write(
        `${style.dim(ids.get(memory.id) ?? memory.id)}  ${safeForTerminal(memorySummary(memory, width))}\n`,
      );
  } finally {
    store?.close();
  }
}

/**
 * `ion memory forget ID [--hard]`: ends the memory's validity now — it is no longer recalled, and
 * `--as-of` an earlier date still finds it; `--hard` deletes it.
 */
export async function forgetMemory(rawArgs: string[]): Promise<void> {
  const args = parseStrict("memory forget", rawArgs, forgetArgs, 1);
  const prefix = String(args.id ?? "").trim();
  if (prefix === "")
    throw new IonError("usage", '"ion memory forget" needs a memory id', {
      hint: "`ion memory list` or `ion memory search QUERY` shows the ids",
    });
  if (!memoryExists()) requireMemory(undefined, prefix);
  const store = openMemoryStore();
  try {
    process.stdout.write(`${forgetInStore(store, prefix, args.hard === true)}\n`);
  } finally {
    store.close();
  }
}

/** Forgets (or with `hard` deletes) the memory `prefix` names; the line that says what was done. */
export function forgetInStore(
  store: ReturnType<typeof openMemoryStore>,
  prefix: string,
  hard: boolean,
): string {
  const memory = requireMemory(store, prefix);
  const what = `${memory.id} (${memorySummary(memory, 60)})`;
  if (hard) {
    store.remove(memory.id);
    return `deleted ${safeForTerminal(what)}`;
  }
  if (memory.validTo !== null) return `already forgotten: ${safeForTerminal(what)}`;
  store.forget(memory.id);
  return `forgot ${safeForTerminal(what)}: no longer recalled (\`--as-of\` an earlier date still finds it; --hard deletes it)`;
}
