/**
 * The bash tool's result as saved in a session — `{"stdout","stderr","exit_code","signal"?,"note"?}`
 * as one line of JSON (see tools/bash.ts) — taken apart so transcripts can show the output as the
 * lines it was instead of JSON with `\n` in it.
 */
export interface BashResult {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  signal?: string;
  note?: string;
}

/** The parts of a bash tool's result; undefined for another tool, or content not of that shape. */
export function bashResult(tool: string, content: string): BashResult | undefined {
  if (tool !== "bash" || !content.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined; // not the tool's JSON (an error text): shown as it is
    throw err;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { stdout, stderr, exit_code, signal, note } = value as Record<string, unknown>;
  if (typeof stdout !== "string" || typeof stderr !== "string") return undefined;
  if (exit_code !== null && typeof exit_code !== "number") return undefined;
  return {
    stdout,
    stderr,
    exit_code,
    ...(typeof signal === "string" ? { signal } : {}),
    ...(typeof note === "string" ? { note } : {}),
  };
}

/** "exit 0", "exit 2", "killed by SIGTERM", "no exit code". */
export function exitText(result: BashResult): string {
  if (result.exit_code !== null) return `exit ${result.exit_code}`;
  return result.signal ? `killed by ${result.signal}` : "no exit code";
}

/** A bash call's command, and its other arguments (a timeout) if any; undefined for another tool. */
export function shellCommand(
  tool: string,
  input: Record<string, unknown>,
): { text: string; rest: Record<string, unknown> | undefined } | undefined {
  const { command, ...rest } = input;
  if (tool !== "bash" || typeof command !== "string") return undefined;
  return { text: command, rest: Object.keys(rest).length > 0 ? rest : undefined };
}
