/** A small line-based unified diff (Myers), enough to show the model and the user what an edit changed. */

type Op = { kind: " " | "-" | "+"; line: string };

/** Beyond this many differing lines Myers stops and the changed middle is shown as one replace block. */
const MAX_EDIT_DISTANCE = 2000;

/** Splits text into lines that keep their `\n`, so a missing newline at the end is a difference too. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === "" ? [] : lines;
}

/**
 * Myers' O(ND) shortest edit script. Each step's frontier is saved for backtracking, only the slice
 * [-d-1, d+1] that step can read, so memory stays O(D²). Undefined past `maxD` edits.
 */
function myers(a: string[], b: string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, maxD); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace);
    }
  }
  return undefined;
}

function backtrack(a: string[], b: string[], trace: Int32Array[]): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const saved = trace[d]!;
    const at = (k: number) => saved[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: " ", line: a[x]! });
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "+", line: b[prevY]! });
      else ops.push({ kind: "-", line: a[prevX]! });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** The edit script: common prefix and suffix are trimmed first, so a typical edit diffs only a few lines. */
function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB, MAX_EDIT_DISTANCE) ?? [
    ...midA.map((line): Op => ({ kind: "-", line })),
    ...midB.map((line): Op => ({ kind: "+", line })),
  ];
  const same = (line: string): Op => ({ kind: " ", line });
  return [...a.slice(0, start).map(same), ...middle, ...a.slice(endA).map(same)];
}

function render(op: Op): string {
  const text = op.line.endsWith("\n") ? op.line.slice(0, -1) : `${op.line}\n\\ No newline at end of file`;
  return `${op.kind}${text}`;
}

/** A hunk's range: `start,count`, where an empty range starts at the line before it (as diff does). */
function range(start: number, count: number): string {
  return `${count === 0 ? start : start + 1},${count}`;
}

export interface DiffOptions {
  /** The path shown in the `---`/`+++` header (relative paths get the usual `a/`/`b/` prefixes). */
  path: string;
  /** Unchanged lines shown around each change; default 3. */
  context?: number;
}

/** A unified diff of two texts, or "" when they are equal. Lines are compared with their line ends. */
export function unifiedDiff(before: string, after: string, options: DiffOptions): string {
  const context = options.context ?? 3;
  const ops = diffLines(splitLines(before), splitLines(after));
  const changed = ops.flatMap((op, i) => (op.kind === " " ? [] : [i]));
  if (changed.length === 0) return "";

  // Group changes whose context windows touch or overlap into one hunk.
  const groups: Array<[number, number]> = [];
  for (const i of changed) {
    const last = groups.at(-1);
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else groups.push([i, i]);
  }

  // Line numbers (0-based) in the old and new text before each op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "+") oldLine++;
    if (op.kind !== "-") newLine++;
  }

  const absolute = options.path.startsWith("/");
  const out = [`--- ${absolute ? "" : "a/"}${options.path}`, `+++ ${absolute ? "" : "b/"}${options.path}`];
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(from, to + 1);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    out.push(`@@ -${range(oldAt[from]!, oldCount)} +${range(newAt[from]!, newCount)} @@`);
    for (const op of slice) out.push(render(op));
  }
  return `${out.join("\n")}\n`;
}
