/** What went wrong with a file, in words where the error code is a common one. */
const CODE_TEXT: Record<string, string> = {
  ENOENT: "no such file",
  ENOTDIR: "part of the path is a file, not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EISDIR: "it is a directory",
};

/** "part of the path is a file, not a directory, ENOTDIR"; the code alone when it is a rare one. */
export function errnoText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined) return CODE_TEXT[code] ? `${CODE_TEXT[code]}, ${code}` : code;
  return err instanceof Error ? err.message : String(err);
}
