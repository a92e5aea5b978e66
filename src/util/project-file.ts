import { readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { errnoOf } from "./error-text.ts";

/**
 * The one reader for files that come from a project (a repository the user cloned): its
 * `.ion/config.json`, AGENTS.md/CLAUDE.md, skills, `.gitignore`. A repository is untrusted, so such a
 * file is read only when
 *   - its real path (symlinks resolved) is inside the project's root — the workspace guard's rule, so
 *     `AGENTS.md → /proc/self/environ` or `.ion/skills/x.md → ~/.ssh/id_rsa` is refused;
 *   - it is a regular file (not `/dev/zero`, a FIFO that never ends, a directory);
 *   - it is at most `maxBytes` long (a runaway file cannot fill memory);
 *   - it is owned by the user or by root (another account's file is not the user's project).
 *
 *   readProjectFile(path, root, maxBytes?) → { kind: "bytes", bytes, id } | { kind: "missing" } | { kind: "refused", reason }
 *   readProjectText(path, root, maxBytes?) → { kind: "text", text } | missing | refused    the same, as UTF-8 text
 *   checkProjectFile(path, root, stat, maxBytes?) → reason | undefined    the same rules, for a caller that reads itself
 *   isInside(path, dir) → boolean                                          `path` is `dir` or below it
 *   ownedByOther(stat) → uid | undefined                                   the foreign owner, on systems with owners
 */

/** Big enough for any real instruction, skill or config file; small enough to hold in memory. */
export const PROJECT_FILE_MAX_BYTES = 1024 * 1024;

export type ProjectFile =
  | { kind: "bytes"; bytes: Uint8Array; id: string }
  | { kind: "missing" }
  | { kind: "refused"; reason: string };

/** `path` is `dir` itself or below it (both absolute; `..foo` is an ordinary name inside). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

const uid = typeof process.getuid === "function" ? process.getuid() : undefined;

/** The owner's uid when it is neither this user nor root; undefined where files have no owners (Windows). */
export function ownedByOther(stat: { uid: number }): number | undefined {
  if (uid === undefined) return undefined;
  return stat.uid === uid || stat.uid === 0 ? undefined : stat.uid;
}

/** Real paths of project roots: one project's files are checked against the same root many times. */
const realRoots = new Map<string, string>();

function realRoot(root: string): string {
  const known = realRoots.get(root);
  if (known !== undefined) return known;
  try {
    const real = realpathSync(root);
    realRoots.set(root, real);
    return real;
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return root;
    throw err;
  }
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** The reason given for a directory, FIFO, socket or device inside the project. */
export const NOT_REGULAR = "it is not a regular file";

/** What the rules need of a stat (symlinks followed). */
export interface ProjectFileStat {
  isFile: boolean;
  size: number;
  uid: number;
}

/**
 * Why the file at `path` may not be read; undefined when it may. Throws only when its real path
 * cannot be resolved.
 */
export function checkProjectFile(
  path: string,
  root: string,
  stat: ProjectFileStat,
  maxBytes = PROJECT_FILE_MAX_BYTES,
): string | undefined {
  const real = realpathSync(path);
  if (!isInside(real, realRoot(root))) return `it resolves outside the project (to ${real})`;
  if (!stat.isFile) return NOT_REGULAR;
  const owner = ownedByOther(stat);
  if (owner !== undefined) return `it is owned by another user (uid ${owner})`;
  if (stat.size > maxBytes) return `it is larger than ${sizeText(maxBytes)}`;
  return undefined;
}

/** Reads a project file under the rules above. Never throws for the file's own problems. */
export function readProjectFile(path: string, root: string, maxBytes = PROJECT_FILE_MAX_BYTES): ProjectFile {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    const c = errnoOf(err);
    if (c === "ENOENT" || c === "ENOTDIR") return { kind: "missing" };
    if (c === "ELOOP") return { kind: "refused", reason: "too many levels of symbolic links" };
    return { kind: "refused", reason: `cannot read it (${c ?? String(err)})` };
  }
  let reason: string | undefined;
  try {
    reason = checkProjectFile(
      path,
      root,
      { isFile: stat.isFile(), size: stat.size, uid: stat.uid },
      maxBytes,
    );
  } catch (err) {
    return { kind: "refused", reason: `cannot resolve it (${errnoOf(err) ?? String(err)})` };
  }
  if (reason !== undefined) return { kind: "refused", reason };
  try {
    const bytes = readFileSync(path);
    // The file grew between stat and read: the cap still holds.
    if (bytes.length > maxBytes)
      return { kind: "refused", reason: `it is larger than ${sizeText(maxBytes)}` };
    return { kind: "bytes", bytes, id: `${stat.dev}:${stat.ino}` };
  } catch (err) {
    const c = errnoOf(err);
    if (c === "ENOENT") return { kind: "missing" };
    return { kind: "refused", reason: `cannot read it (${c ?? String(err)})` };
  }
}

/** The reason given for a project file that is not UTF-8 text. */
export const NOT_UTF8 = "not UTF-8 text";

export type ProjectText = { kind: "text"; text: string } | Exclude<ProjectFile, { kind: "bytes" }>;

/** A project file as UTF-8 text (a leading BOM dropped); bytes that are not UTF-8 are refused with NOT_UTF8. */
export function readProjectText(path: string, root: string, maxBytes = PROJECT_FILE_MAX_BYTES): ProjectText {
  const read = readProjectFile(path, root, maxBytes);
  if (read.kind !== "bytes") return read;
  try {
    return { kind: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(read.bytes) };
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return { kind: "refused", reason: NOT_UTF8 };
  }
}
