import { join } from "node:path";
import { IonError } from "../errors.ts";
import { isPlainObject } from "../util/plain-object.ts";
import { atomicWriteJson, readJson } from "./load.ts";
import { dataDir, type Env } from "./paths.ts";

/**
 * The projects the user trusts: `<data>/trusted-projects.json`,
 *
 *   {"version": 1, "projects": {"/real/path": {"hash": "<sha256>", "trusted_at": "<ISO time>"}}}
 *
 * keyed by the project root's real path; `hash` is of what the project would run when it was trusted
 * (trust-project.ts), so a change asks again. Changes are made under the file's lock (parallel ion processes
 * keep each other's entries) and written atomically.
 */

export interface TrustRecord {
  hash: string;
  trusted_at: string;
}

export type TrustedProjects = Record<string, TrustRecord>;

const VERSION = 1;

export function trustFile(env: Env): string {
  return join(dataDir(env), "trusted-projects.json");
}

function isRecord(value: unknown): value is TrustRecord {
  return isPlainObject(value) && typeof value.hash === "string" && typeof value.trusted_at === "string";
}

/** Every trusted project. A file that is not what ion wrote is an error naming it (never rewritten). */
export async function readTrusted(file: string): Promise<TrustedProjects> {
  const raw = await readJson(file);
  if (raw === undefined) return {};
  const projects = isPlainObject(raw) && raw.version === VERSION ? raw.projects : undefined;
  if (!isPlainObject(projects) || !Object.values(projects).every(isRecord))
    throw new IonError("config", `${file}: not a list of trusted projects`, {
      hint: `remove it to start again (every project is then untrusted): rm ${file}`,
    });
  return projects as TrustedProjects;
}

/** Changes the store under its lock: `change` edits the projects read, which are then written back. */
async function update(file: string, change: (projects: TrustedProjects) => boolean): Promise<boolean> {
  // The lock's code loads only to write: a run that just reads the store does without it.
  const { withFileLock } = await import("../util/file-lock.ts");
  return withFileLock(file, async () => {
    const projects = await readTrusted(file);
    const changed = change(projects);
    if (changed) await atomicWriteJson(file, { version: VERSION, projects });
    return changed;
  });
}

/** Trusts `root` as it is now (`hash` of what it would run). */
export async function trustProject(
  file: string,
  root: string,
  hash: string,
  now = new Date(),
): Promise<void> {
  await update(file, (projects) => {
    projects[root] = { hash, trusted_at: now.toISOString() };
    return true;
  });
}

/** Stops trusting `root`; false when it was not trusted. */
export function revokeProject(file: string, root: string): Promise<boolean> {
  return update(file, (projects) => {
    if (!Object.hasOwn(projects, root)) return false;
    delete projects[root];
    return true;
  });
}
