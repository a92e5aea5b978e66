/**
 * What loading a user's files reports besides the items themselves. Loading never throws for a bad
 * file: the file becomes a diagnostic and the rest loads.
 *
 *   Loaded<T> = { items: T[]; diagnostics: Diagnostic[] }
 *   formatDiagnostic(d) → "warning: <path>: <message>"
 *   listDir(path, diagnostics) → Dirent[]          a missing directory is none; an unreadable one a warning
 */
import { type Dirent, readdirSync } from "node:fs";
import { errnoOf } from "../util/error-text.ts";

export interface Diagnostic {
  /** The file (or directory) it is about. */
  path: string;
  /** `error`: the file was not used. `warning`: it was used, with the change the message names. */
  severity: "error" | "warning";
  message: string;
  /**
   * A project file the project-file rules refused (a link out of the project, not a regular file, too
   * big, another user's): said on every run, not only with -v, since it may be an attack.
   */
  refused?: true;
}

export interface Loaded<T> {
  items: T[];
  diagnostics: Diagnostic[];
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  return `${diagnostic.severity}: ${diagnostic.path}: ${diagnostic.message}`;
}

/** "EACCES: permission denied, open '…'" → "permission denied"; anything else → its message. */
export function ioReason(err: unknown): string {
  if (err instanceof Error) {
    const match = /^[A-Z]+: ([^,]+)/.exec(err.message);
    return match?.[1] ?? err.message;
  }
  return String(err);
}

/** A directory of the user's files, sorted by name. Most such directories do not exist: the normal case. */
export function listDir(path: string, diagnostics: Diagnostic[]): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch (err) {
    const code = errnoOf(err);
    if (code !== "ENOENT" && code !== "ENOTDIR")
      diagnostics.push({ path, severity: "warning", message: `cannot list it (${ioReason(err)})` });
    return [];
  }
}
