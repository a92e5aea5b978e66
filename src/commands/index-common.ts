import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { IndexStatus, UpdateSummary } from "../code-index/store.ts";
import { IonError } from "../errors.ts";
import { byteSize, count, countedGrouped } from "../util/numbers.ts";
import { tildePath } from "./_shared.ts";

/** What `ion index` and `/index` share: the project's root, the progress bar, the summary and status lines. */

/** The directory as the index knows it: its real path, so a symlinked way in finds the same index. */
export function indexedRoot(dir: string): string {
  return realpathSync(dir);
}

/**
 * The project root `ion index [PATH]` and `/index [path]` name (PATH relative to `cwd`), as the index
 * knows it; a path that is missing or no directory is a usage error saying so.
 */
export function projectRootAt(cwd: string, path: string | undefined): string {
  const dir = resolve(cwd, path || ".");
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" && (err as NodeJS.ErrnoException).code !== "ENOTDIR")
      throw err;
  }
  if (!isDirectory) throw new IonError("usage", `${path || dir} is not a directory`);
  return indexedRoot(dir);
}

/** `typescript 120, python 4` — the counts above zero, largest first. */
function counts(record: Readonly<Record<string, number>>): string {
  return Object.entries(record)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, n]) => `${name} ${count(n)}`)
    .join(", ");
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `indexed 412 files (412 parsed, 0 removed): 5 210 symbols; typescript 380, tsx 32; skipped 3 (2 binary, 1 too-large); 1.4 s`
 */
export function summaryLine(summary: UpdateSummary): string {
  const languages = counts(summary.languages);
  const skippedTotal = Object.values(summary.skipped).reduce((sum, n) => sum + n, 0);
  const skipped = skippedTotal > 0 ? `; skipped ${count(skippedTotal)} (${counts(summary.skipped)})` : "";
  return (
    `indexed ${countedGrouped(summary.files, "file")} (${count(summary.parsed)} parsed, ${count(summary.removed)} removed): ` +
    `${countedGrouped(summary.symbols, "symbol")}${languages ? `; ${languages}` : ""}${skipped}; ${seconds(summary.ms)}`
  );
}

/** `ion index status`: one `label: value` line each. */
export function statusLines(root: string, path: string, status: IndexStatus): string[] {
  const skippedTotal = Object.values(status.skipped).reduce((sum, n) => sum + n, 0);
  const rows: [string, string][] = [
    ["project", tildePath(root)],
    ["index", `${tildePath(path)} (${byteSize(status.bytes)})`],
    ["files", `${count(status.files)}${status.files > 0 ? ` (${counts(status.languages)})` : ""}`],
    ["skipped", skippedTotal > 0 ? `${count(skippedTotal)} (${counts(status.skipped)})` : "none"],
    ["symbols", `${count(status.symbols)} definitions, ${count(status.references)} references`],
    ["updated", status.updatedAt === null ? "never" : new Date(status.updatedAt).toISOString()],
  ];
  return rows.map(([label, value]) => `${`${label}:`.padEnd(10)}${value}`);
}

/**
 * A progress bar on stderr when it is a terminal, redrawn at most ten times a second; nothing
 * otherwise. `done` clears it (and may be called more than once).
 */
export function progressBar(stream: NodeJS.WriteStream): {
  update(done: number, total: number): void;
  done(): void;
} {
  const terminal = stream.isTTY === true;
  let drawn = false;
  let last = 0;
  return {
    update(done, total) {
      if (!terminal || total === 0) return;
      const now = performance.now();
      if (drawn && now - last < 100 && done < total) return;
      last = now;
      const width = 24;
      const filled = Math.round((done / total) * width);
      stream.write(
        `\r\x1b[2Kindexing [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total} files`,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write("\r\x1b[2K");
      drawn = false;
    },
  };
}
