import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { RunResult } from "../agent/events.ts";
import { parseToolRules, type ToolRules } from "../agent/tool-rules.ts";
import { describeError, IonError } from "../errors.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { errnoOf, systemMessage } from "../util/error-text.ts";

/**
 * The CI flags of `ion run` that change one run without touching config: `--allowedTools`,
 * `--disallowedTools`, `--add-dir` (Claude Code's names) and `--output-last-message` (Codex's). Paths are
 * taken from where ion was started, as a shell would, whatever `--cwd` says.
 */

export interface RunToolFlags {
  toolRules: ToolRules | undefined;
  addDirs: string[];
}

export function runToolFlags(
  repeated: Record<string, string[]>,
  notice: (line: string) => void,
): RunToolFlags {
  const allowed = repeated["allowed-tools"] ?? [];
  const disallowed = repeated["disallowed-tools"] ?? [];
  let toolRules: ToolRules | undefined;
  if (allowed.length + disallowed.length > 0) {
    toolRules = parseToolRules(allowed, disallowed);
    // Claude Code's other tools (WebFetch, TodoWrite, mcp__…) have no ion counterpart: a ported script still runs.
    for (const name of toolRules.unknown)
      notice(`warning: ignoring tool ${name}: ion has no tool by that name`);
  }
  const addDirs = (repeated["add-dir"] ?? []).map((dir) => {
    const absolute = resolve(dir);
    if (!isDirectory(absolute, `--add-dir ${dir}`))
      throw new IonError(
        "usage",
        `--add-dir ${dir}: ${existsAsFile(absolute) ? "not a directory" : "no such directory"}`,
      );
    return absolute;
  });
  return { toolRules, addDirs };
}

/** `--output-last-message FILE` where FILE could never be written: a usage error before the run. */
export function checkLastMessageFile(file: string): void {
  if (file.trim() === "") throw new IonError("usage", "--output-last-message needs a file name");
  const path = resolve(file);
  const flag = `--output-last-message ${file}`;
  if (isDirectory(path, flag)) throw new IonError("usage", `${flag}: it is a directory`);
  if (!isDirectory(dirname(path), flag))
    throw new IonError("usage", `${flag}: no such directory ${dirname(path)}`);
}

function existsAsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch (err) {
    if (errnoOf(err) === "ENOENT" || errnoOf(err) === "ENOTDIR") return false;
    throw err;
  }
}

/** Whether `path` is a directory; a path that cannot be looked at is a usage error of `flag` (flag and value). */
function isDirectory(path: string, flag: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw new IonError("usage", `${flag}: ${systemMessage(err)}`, { cause: err });
  }
}

/**
 * `--output-last-message FILE`: the result's text, written atomically (a temp file in the same directory,
 * then rename), failed runs included — their partial text, possibly empty — so the file never holds a
 * previous run's answer. It is written after the run's own output is complete. A write that fails is
 * the error of a run that succeeded (exit 1); a failed run keeps its own error and exit code, with the
 * write's failure on a line before it.
 */
export async function saveLastMessage(
  file: string,
  result: RunResult,
  say: (line: string) => void,
): Promise<void> {
  try {
    await writeFileAtomic(resolve(file), result.result);
  } catch (err) {
    const failure = new IonError(
      "io",
      `--output-last-message: cannot write ${file} (${systemMessage(err)})`,
      {
        cause: err,
      },
    );
    if (result.subtype === "success") throw failure;
    say(`ion: ${describeError(failure)}\n`);
  }
}
