/**
 * Bringing the index up to date with the project: walk it with the file tools' walker and ignore rules
 * (src/tools/walk.ts), look again only at files whose size or mtime moved, parse only those whose
 * content hash moved too, and drop files that are gone. A rename is a removal and an addition.
 * Changes are written in batches of files, one IMMEDIATE transaction each (store-write.ts).
 *
 * With `paths`, only those files are looked at (an editing tool's files, before a lookup): one missing
 * is dropped, one new is added — even where .gitignore excludes it, until the next full update.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { walkFiles } from "../tools/walk.ts";
import { errnoOf } from "../util/error-text.ts";
import { isInside, readProjectFile } from "../util/project-file.ts";
import { languageOf } from "./languages.ts";
import {
  type Batch,
  type FileVersion,
  type ParsedFile,
  pruneNames,
  type StoredFile,
  storedFiles,
  storedFilesAmong,
} from "./store-write.ts";

export interface UpdateOptions {
  /** Only these files (absolute, or relative to the root); default: the whole project. */
  paths?: readonly string[];
  /** Called with the files parsed so far and the files to look at (those whose stat moved). */
  onProgress?(done: number, total: number): void;
  signal?: AbortSignal;
  /** Files larger than this are skipped as too large; default the parser's (1 MiB). */
  maxBytes?: number;
}

/** What an update did. */
export interface UpdateWork {
  /** Files parsed by this update (their definitions and references stored anew). */
  parsed: number;
  /** Their paths, in walk order. */
  parsedPaths: string[];
  /** Files dropped: gone from the project (or now ignored, or unreadable). */
  removed: number;
  /** Files that could not be read (a link out of the project, another user's file) or directories the walk could not list. */
  unreadable: string[];
  /** The walk stopped at its entry limit: files it did not reach were kept as they were. */
  limitReached: boolean;
}

/** How the update reaches the database: through the store's damage guard. */
export interface IndexWriter {
  read<T>(run: (db: Database) => T): T;
  write(batch: Batch): void;
}

/** Files parsed per transaction: large enough that commits cost little, small enough that another process waits little. */
const BATCH_FILES = 64;
const DEFAULT_MAX_BYTES = 1024 * 1024;

type Parse = typeof import("./parse.ts").tagsOf;

export async function updateFiles(
  root: string,
  store: IndexWriter,
  options: UpdateOptions = {},
): Promise<UpdateWork> {
  const { signal } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const work: UpdateWork = { parsed: 0, parsedPaths: [], removed: 0, unreadable: [], limitReached: false };
  const full = options.paths === undefined;
  const found = full ? await walkProject(root, work, signal) : namedFiles(root, options.paths ?? []);
  const stored = store.read((db) => (full ? storedFiles(db) : storedFilesAmong(db, found)));

  const removed: string[] = [];
  const changed: { rel: string; size: number; mtimeMs: number }[] = [];
  for (const rel of found) {
    const stat = statOf(resolve(root, rel));
    if (!stat) {
      if (stored.has(rel)) removed.push(rel);
      continue;
    }
    const before = stored.get(rel);
    if (!before || before.size !== stat.size || before.mtimeMs !== stat.mtimeMs)
      changed.push({ rel, ...stat });
  }
  if (full && !work.limitReached) {
    const seen = new Set(found);
    for (const rel of stored.keys()) if (!seen.has(rel)) removed.push(rel);
  }

  work.removed = removed.length;
  let parse: Parse | undefined;
  let batch: { parsed: ParsedFile[]; touched: FileVersion[]; removed: string[] } = {
    parsed: [],
    touched: [],
    removed,
  };
  options.onProgress?.(0, changed.length);
  for (const [done, file] of changed.entries()) {
    signal?.throwIfAborted();
    const language = languageOf(file.rel)!; // found files all have one
    const version = { path: file.rel, size: file.size, mtimeMs: file.mtimeMs, language };
    if (file.size > maxBytes) {
      batch.parsed.push({ ...version, hash: "", skipped: "too-large" });
    } else {
      const read = readProjectFile(resolve(root, file.rel), root, maxBytes);
      if (read.kind === "bytes") {
        const hash = Bun.hash.xxHash3(read.bytes).toString(16);
        if (hash === stored.get(file.rel)?.hash) batch.touched.push({ ...version, hash });
        else {
          parse ??= (await import("./parse.ts")).tagsOf;
          const tags = await parse(file.rel, read.bytes, { maxBytes });
          batch.parsed.push({
            ...version,
            hash,
            ...("skipped" in tags ? { skipped: tags.skipped } : { tags }),
          });
          if (!("skipped" in tags)) {
            work.parsed++;
            work.parsedPaths.push(file.rel);
          }
        }
      } else {
        // Gone since the stat, or refused by the project-file rules: either way it has no place in the index.
        if (read.kind === "refused") work.unreadable.push(file.rel);
        if (stored.has(file.rel)) {
          batch.removed.push(file.rel);
          work.removed++;
        }
      }
    }
    if (batch.parsed.length >= BATCH_FILES) {
      store.write(batch);
      batch = { parsed: [], touched: [], removed: [] };
    }
    options.onProgress?.(done + 1, changed.length);
  }
  store.write(batch);
  if (full && (work.parsed > 0 || work.removed > 0)) store.read(pruneNames);
  return work;
}

/** The project's files that have a grammar, relative to the root, in the walker's order. */
async function walkProject(
  root: string,
  work: UpdateWork,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const walk = walkFiles(root, { scope: { root, allow: [] }, ...(signal ? { signal } : {}) });
  const files: string[] = [];
  for await (const file of walk) if (languageOf(file.rel)) files.push(file.rel);
  work.limitReached = walk.limitReached;
  for (const dir of walk.unreadable) work.unreadable.push(toRel(root, dir));
  return files;
}

/** Named files inside the root that have a grammar, relative to it, each once. */
function namedFiles(root: string, paths: readonly string[]): string[] {
  const files = new Set<string>();
  for (const path of paths) {
    const abs = isAbsolute(path) ? path : resolve(root, path);
    if (!isInside(abs, root) || abs === root) continue;
    const rel = toRel(root, abs);
    if (languageOf(rel)) files.add(rel);
  }
  return [...files];
}

function toRel(root: string, abs: string): string {
  const rel = relative(root, abs);
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** A regular file's size and mtime (links followed); undefined when it is gone or not a file. */
function statOf(path: string): Pick<StoredFile, "size" | "mtimeMs"> | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? { size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined;
    throw err;
  }
}
