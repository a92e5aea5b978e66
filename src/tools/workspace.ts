import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { configuredDir } from "../config/paths.ts";
import { isInside } from "../util/project-file.ts";
import { ToolInputError } from "./define.ts";

/** The one path guard every file tool goes through. */
export interface WorkspaceScope {
  /** The workspace root (`--cwd` or the working directory). */
  root: string;
  /** Extra directories file tools may reach (config `workspace.allow`). */
  allow: string[];
}

/** The target of `path` when it is a symbolic link (even a dangling one), else undefined. */
function linkTarget(path: string): string | undefined {
  try {
    const target = readlinkSync(path);
    // Relative to the link's real directory, as the kernel resolves it (`..` after a symlinked dir).
    return resolve(realpathSync(dirname(path)), target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EINVAL" || code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/** Symlink hops followed by hand before giving up, as the kernel's ELOOP limit does. */
const MAX_LINK_HOPS = 40;

/**
 * realpath of the nearest existing ancestor plus the parts that do not exist yet (for new files).
 * A dangling symlink is followed to where it points: writing through it would create its target.
 */
function realpathAllowMissing(path: string): string {
  const missing: string[] = [];
  let current = path;
  let hops = 0;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new ToolInputError(`${path}: too many levels of symbolic links`);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      const target = linkTarget(current);
      if (target !== undefined) {
        if (++hops > MAX_LINK_HOPS) throw new ToolInputError(`${path}: too many levels of symbolic links`);
        current = target;
        continue;
      }
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** A relative path that leaves its base (`..`, `../x`); `..foo` is an ordinary name inside it. */
function leavesBase(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/**
 * Resolves a path given by the model against the workspace root, following symlinks, and refuses it
 * unless the real target is inside the root or an allowed directory. Returns the real path.
 */
export function resolveInWorkspace(path: string, scope: WorkspaceScope): string {
  if (path.trim() === "") throw new ToolInputError("path is empty");
  if (path.includes("\0")) throw new ToolInputError("path contains a NUL byte");
  const root = realpathAllowMissing(resolve(scope.root));
  const target = realpathAllowMissing(resolve(scope.root, path));
  if (isInside(target, root)) return target;
  for (const dir of scope.allow) {
    if (isInside(target, realpathAllowMissing(configuredDir(scope.root, dir)))) return target;
  }
  throw new ToolInputError(
    `${path} is outside the workspace ${root}; file tools only reach the workspace and the directories in workspace.allow`,
  );
}

/** A path as shown to the model: relative to the root when inside it. */
export function displayPath(path: string, root: string): string {
  const rel = relative(realpathAllowMissing(resolve(root)), path);
  return rel === "" ? "." : leavesBase(rel) ? path : rel;
}
