import { readFileSync, statSync } from "node:fs";
import { checkProjectFile, NOT_REGULAR } from "../util/project-file.ts";
import { ioReason } from "./diagnostics.ts";

/**
 * Text files read once and kept while they do not change: a long chat stats its instruction files and
 * template before every turn and reads one again only when its mtime, size or inode moved.
 *
 *   new TextFileCache(fs?)        fs defaults to node:fs; tests pass a counting one
 *   cache.read(path, projectRoot?) → FileText   { kind: "text", text, id } | { kind: "missing" } | { kind: "error", reason }
 *
 * Symlinks are followed (stat and read see the target). Text must be UTF-8: anything else is an
 * error, not mojibake in a system prompt. A file that comes from a project (`projectRoot` given) must
 * also pass the project-file rules (util/project-file.ts): inside the project, regular, capped, the
 * user's own — otherwise it is an error and is not read at all.
 */

export interface FileStat {
  mtimeMs: number;
  size: number;
  isFile: boolean;
  /** A directory named like an instruction file is not one, and not worth a warning either. */
  isDirectory: boolean;
  /** Device and inode, so one file reached by two paths (a symlink) is recognised. */
  dev: number;
  ino: number;
  /** The owner, for the project-file rules. */
  uid: number;
}

export interface FileSystem {
  /** undefined when nothing is there (or a dangling symlink); throws for other failures. */
  stat(path: string): FileStat | undefined;
  read(path: string): Uint8Array;
}

export const nodeFileSystem: FileSystem = {
  stat(path) {
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) return undefined;
      return {
        mtimeMs: stat.mtimeMs,
        size: stat.size,
        isFile: stat.isFile(),
        isDirectory: stat.isDirectory(),
        dev: stat.dev,
        ino: stat.ino,
        uid: stat.uid,
      };
    } catch (err) {
      // A path through a regular file ("a/AGENTS.md/x") is as absent as a missing one.
      if (err instanceof Error && "code" in err && err.code === "ENOTDIR") return undefined;
      throw err;
    }
  },
  read: (path) => readFileSync(path),
};

export type FileText =
  | { kind: "text"; text: string; id: string }
  | { kind: "missing" }
  | { kind: "error"; reason: string };

interface Entry {
  version: string;
  result: FileText;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export class TextFileCache {
  readonly #fs: FileSystem;
  readonly #entries = new Map<string, Entry>();

  constructor(fs: FileSystem = nodeFileSystem) {
    this.#fs = fs;
  }

  read(path: string, projectRoot?: string): FileText {
    let stat: FileStat | undefined;
    try {
      stat = this.#fs.stat(path);
    } catch (err) {
      return { kind: "error", reason: `cannot read it (${ioReason(err)})` };
    }
    if (!stat) {
      this.#entries.delete(path);
      return { kind: "missing" };
    }
    const version = `${stat.mtimeMs}:${stat.size}:${stat.dev}:${stat.ino}:${projectRoot ?? ""}`;
    const cached = this.#entries.get(path);
    if (cached?.version === version) return cached.result;
    if (projectRoot !== undefined) {
      let refused: string | undefined;
      try {
        refused = checkProjectFile(path, projectRoot, stat);
      } catch (err) {
        refused = `cannot resolve it (${ioReason(err)})`;
      }
      // A directory named AGENTS.md inside the project is simply not an instruction file; a FIFO,
      // socket or device there is refused with a warning, as every project file is.
      if (refused !== undefined && !(refused === NOT_REGULAR && stat.isDirectory)) {
        const result: FileText = { kind: "error", reason: refused };
        this.#entries.set(path, { version, result });
        return result;
      }
    }
    if (!stat.isFile) {
      this.#entries.delete(path);
      return { kind: "missing" };
    }
    let bytes: Uint8Array;
    try {
      bytes = this.#fs.read(path);
    } catch (err) {
      // Not cached: a permission fixed by the user is seen on the next read.
      return { kind: "error", reason: `cannot read it (${ioReason(err)})` };
    }
    let result: FileText;
    try {
      result = { kind: "text", text: utf8.decode(bytes), id: `${stat.dev}:${stat.ino}` };
    } catch {
      // The decoder's only failure is invalid UTF-8; the reason says so rather than quoting it.
      result = { kind: "error", reason: "not UTF-8 text" };
    }
    this.#entries.set(path, { version, result });
    return result;
  }
}
