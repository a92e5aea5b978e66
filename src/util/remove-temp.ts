import { rm } from "node:fs/promises";

/**
 * Removes the temp file of a failed atomic write, if it was ever made, so that the write's own error is
 * what the user sees. "Nothing there" is not a failure: ENOENT, ENOTDIR, and EFAULT, which Bun's `rm`
 * reports instead of ENOTDIR (even with `force`) when a parent in the path is a file.
 */
export async function removeTemp(path: string): Promise<void> {
  try {
    await rm(path, { force: true });
  } catch (err) {
    const code = err instanceof Error && "code" in err ? err.code : undefined;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EFAULT") throw err;
  }
}
