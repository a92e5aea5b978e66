/** SQL fragments and row mapping the memory store's queries share. */
import type { MemoryRecord, MemoryType } from "./types.ts";

export interface MemoryRow {
  seq: number;
  id: string;
  content: string;
  source: string;
  type: MemoryType;
  created_at: number;
  valid_from: number;
  valid_to: number | null;
  tokens: number;
}

export const COLUMNS =
  "m.seq, m.id, m.content, m.source, m.type, m.created_at, m.valid_from, m.valid_to, m.tokens";

export function recordOf(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    content: row.content,
    source: row.source,
    type: row.type,
    createdAt: row.created_at,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    tokens: row.tokens,
  };
}

/** Which memories a search sees. */
export interface Filters {
  /** ms: what was known (created) and valid at that time. Absent: valid now. */
  asOf?: number;
  /** A source (the current session) whose memories are left out. */
  excludeSource?: string;
  /** ms: the present, for "valid now" (default the clock). */
  now?: number;
}

/**
 * Valid now (`$now`: not ended, or ended in the future), or at `$asOf`: learnt by then, its validity
 * begun, not yet ended.
 */
export const VALID = `(CASE WHEN $asOf IS NULL THEN (m.valid_to IS NULL OR m.valid_to > $now)
  ELSE (m.created_at <= $asOf AND m.valid_from <= $asOf AND (m.valid_to IS NULL OR m.valid_to > $asOf)) END)`;

export const NOT_EXCLUDED = "($exclude IS NULL OR m.source <> $exclude)";

/** The parameters of VALID and NOT_EXCLUDED. */
export function filterParams(filters: Filters): { asOf: number | null; now: number; exclude: string | null } {
  return {
    asOf: filters.asOf ?? null,
    now: filters.now ?? Date.now(),
    exclude: filters.excludeSource ?? null,
  };
}
