/**
 * Replacing the running binary: the new one is written beside it and synced, the current one is kept
 * as `ion.old` (an earlier ion.old goes), and the new one is renamed over it — a rename, so whoever
 * starts `ion` meanwhile gets the old binary or the new one, never half of one. On Windows a running
 * .exe cannot be replaced, only renamed, so there the current one is renamed to ion.old first.
 */
import { access, chmod, constants, link, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { IonError } from "../errors.ts";
import { errnoOf, errnoText } from "../util/error-text.ts";

/** Whether this process is a compiled single-file ion (not `bun src/main.ts`). */
export function isStandaloneBinary(): boolean {
  return Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(Bun.main);
}

/** `ion.old` (or `ion.old.exe`) beside `target`. */
export function oldPathOf(target: string): string {
  const name = basename(target);
  const old = name.endsWith(".exe") ? `${name.slice(0, -4)}.old.exe` : `${name}.old`;
  return join(dirname(target), old);
}

/** Throws the user's one line when the binary's directory cannot take a new file. */
export async function checkWritable(target: string): Promise<void> {
  const dir = dirname(target);
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new IonError(
      "io",
      `cannot write to ${dir} (${errnoText(err)}), where ion is installed; nothing changed`,
      {
        hint: "run ion update as the user who owns that directory, or reinstall with install.sh to a directory of yours",
      },
    );
  }
}

/** Writes `bytes` beside `target` as an executable, flushed to the disk; returns its path. */
export async function writeBeside(target: string, bytes: Uint8Array): Promise<string> {
  const temp = join(dirname(target), `.${basename(target)}.new-${process.pid}`);
  try {
    const handle = await open(temp, "wx", 0o755);
    try {
      await handle.writeFile(bytes);
      await handle.chmod(0o755);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await rm(temp, { force: true });
    throw new IonError(
      "io",
      `cannot write the new ion to ${dirname(target)} (${errnoText(err)}); nothing changed`,
      {
        cause: err,
      },
    );
  }
  return temp;
}

/** Puts `fresh` (from writeBeside) in `target`'s place and keeps the current binary as ion.old. */
export async function swapIn(target: string, fresh: string): Promise<string> {
  const old = oldPathOf(target);
  let moved = false;
  try {
    await rm(old, { force: true });
    // The new binary gets the permissions the user gave the old one (0700, say), still executable.
    await chmod(fresh, ((await stat(target)).mode & 0o777) | 0o100);
    if (process.platform === "win32") {
      await rename(target, old);
      moved = true;
    } else await keepCopy(target, old);
    await rename(fresh, target);
  } catch (err) {
    await rm(fresh, { force: true });
    // Windows: the old binary goes back where it was rather than leave no ion at all.
    if (moved) await rename(old, target);
    throw new IonError(
      "io",
      `cannot replace ${target} (${errnoText(err)}); the old binary is still in place`,
      { cause: err },
    );
  }
  await syncDir(dirname(target));
  return old;
}

/** A second name for the current binary (a hard link: no copy), or a copy where links are refused. */
async function keepCopy(target: string, old: string): Promise<void> {
  try {
    await link(target, old);
  } catch (err) {
    const code = errnoOf(err);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "EMLINK") throw err;
    const { copyFile } = await import("node:fs/promises");
    await copyFile(target, old);
  }
}

async function syncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
