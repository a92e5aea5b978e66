/**
 * A token count for people, the one form everywhere (context windows, usage, sizes of prompts): 950 →
 * "950", 3_456 → "3.5k", 152_340 → "152k", 1_048_576 → "1M", 2_500_000 → "2.5M". A decimal only
 * where it says something: below 10k, and for millions.
 */
export function formatTokens(n: number): string {
  if (n < 999.5) return String(Math.round(n));
  if (n < 9_950) return `${oneDecimal(n / 1000)}k`;
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  return `${oneDecimal(n / 1_000_000)}M`;
}

function oneDecimal(value: number): string {
  return value.toFixed(1).replace(/\.0$/, "");
}

/** 12345 → "12,345". */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** 1 → "1 message", 3 → "3 messages": a count with its noun (a plain `s` plural). */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Like `counted`, with the number grouped as `count` groups it: 1 → "1 file", 12345 → "12,345 files". */
export function countedGrouped(n: number, noun: string): string {
  return `${count(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** A file's size for people: 512 → "512 B", 2048 → "2.0 KiB", 3_145_728 → "3.0 MiB". */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
