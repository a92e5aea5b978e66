/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M": token counts and sizes for people. */
export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  const [value, unit] = n < 999_950 ? [n / 1000, "k"] : [n / 1_000_000, "M"];
  return `${value.toFixed(1).replace(/\.0$/, "")}${unit}`;
}

/** 12345 → "12,345". */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** 1 → "1 message", 3 → "3 messages": a count with its noun (a plain `s` plural). */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
