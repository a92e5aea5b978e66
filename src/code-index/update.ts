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
  const { changed, removed } = changesOf(root, found, stored, full && !work.limitReached);

  work.removed = removed.length;
  let batch: Batch & { parsed: ParsedFile[]; touched: FileVersion[]; removed: string[] } = {
    parsed: [],
    touched: [],
    removed,
  };
  options.onProgress?.(0, changed.length);
  for (const [done, file] of changed.entries()) {
    signal?.throwIfAborted();
    const outcome = await readFile(root, file, stored.get(file.path)?.hash, maxBytes);
    if (outcome.kind === "parsed") {
      batch.parsed.push(outcome.file);
      if ("tags" in outcome.file) {
        work.parsed++;
        work.parsedPaths.push(file.path);
      }
    } else if (outcome.kind === "touched") batch.touched.push(outcome.file);
    else {
      // Gone since the stat, or refused by the project-file rules: either way it has no place in the index.
      if (outcome.kind === "refused") work.unreadable.push(file.path);
      if (stored.has(file.path)) {
        batch.removed.push(file.path);
        work.removed++;
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

/**
 * Which found files to read again (new, or their size or mtime moved) and which stored files are gone:
 * found but no longer there, or — when `complete` (a full walk that reached everything) — not found.
 */
function changesOf(
  root: string,
  found: readonly string[],
  stored: ReadonlyMap<string, StoredFile>,
  complete: boolean,
): { changed: FileVersion[]; removed: string[] } {
  const changed: FileVersion[] = [];
  const removed: string[] = [];
  for (const path of found) {
    const stat = statOf(resolve(root, path));
    if (!stat) {
      if (stored.has(path)) removed.push(path);
      continue;
    }
    const before = stored.get(path);
    if (!before || before.size !== stat.size || before.mtimeMs !== stat.mtimeMs)
      changed.push({ path, ...stat, hash: "", language: languageOf(path)! }); // hashed when read; found files all have a language
  }
  if (complete) {
    const seen = new Set(found);
    for (const path of stored.keys()) if (!seen.has(path)) removed.push(path);
  }
  return { changed, removed };
}

type ReadOutcome =
  | { kind: "parsed"; file: ParsedFile }
  /** Same content as stored: only its stat is updated. */
  | { kind: "touched"; file: FileVersion }
  | { kind: "missing" }
  | { kind: "refused" };

let parser: typeof import("./parse.ts").tagsOf | undefined;

/** Reads a changed file through the project-file rules and parses it unless its content hash is `storedHash`. */
async function readFile(
  root: string,
  file: FileVersion,
  storedHash: string | undefined,
  maxBytes: number,
): Promise<ReadOutcome> {
  if (file.size > maxBytes) return { kind: "parsed", file: { ...file, skipped: "too-large" } };
  const read = readProjectFile(resolve(root, file.path), root, maxBytes);
  if (read.kind !== "bytes") return { kind: read.kind };
  const hash = Bun.hash.xxHash3(read.bytes).toString(16);
  if (hash === storedHash) return { kind: "touched", file: { ...file, hash } };
  // The parser (and with it web-tree-sitter) loads only when a file needs parsing.
  parser ??= (await import("./parse.ts")).tagsOf;
  const tags = await parser(file.path, read.bytes, { maxBytes });
  return {
    kind: "parsed",
    file: { ...file, hash, ...("skipped" in tags ? { skipped: tags.skipped } : { tags }) },
  };
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
