/**
 * An error in words, for messages to the user or the model. Imports nothing: the start-up path of
 * every command uses it.
 */

/** The error's message; anything thrown that is not an Error, as a string. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno code of a failed system call ("ENOENT"), or undefined for any other error. */
export function errnoOf(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

/**
 * A failed system call's message without the path the runtime appends ("EACCES: permission denied,
 * open '/x/y'" → "EACCES: permission denied"): the caller's own text names the file.
 */
export function systemMessage(err: unknown): string {
  const message = messageOf(err);
  if (errnoOf(err) === undefined) return message;
  // Bun's rm: "Path is a directory: rm returned EISDIR (is a directory) /x/y".
  const returned = /\breturned (E[A-Z]+) \(([^)]+)\)/.exec(message);
  if (returned) return `${returned[1]}: ${returned[2]}`;
  return message.replace(/^(E[A-Z]+: [^,]+), .*$/s, "$1");
}

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
  const code = errnoOf(err);
  if (code !== undefined) return CODE_TEXT[code] ? `${CODE_TEXT[code]}, ${code}` : code;
  return messageOf(err);
}
