import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { isTerminal } from "../util/libc.ts";
import { useProcessStreams } from "../util/stdout.ts";

/**
 * The layered configuration of the working directory; its warnings go to stderr (through `warn`
 * for a command that prints without process.stderr, see util/fd-writer.ts).
 */
export async function loadSettings(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = (line) => process.stderr.write(line),
): Promise<LoadedConfig> {
  const loaded = await loadConfig({ cwd: process.cwd(), env });
  for (const warning of loaded.warnings) warn(`ion: warning: ${warning}\n`);
  return loaded;
}

/**
 * Whether stdout is a terminal, and its width when it is. Asks libc, so that a pipe's reader gets
 * its answer without process.stdout being created (~2 ms); a terminal's width needs the stream.
 */
export function terminal(): { isTTY: boolean; width: number | undefined } {
  const isTTY = isTerminal(1);
  if (isTTY) useProcessStreams();
  return { isTTY, width: isTTY ? process.stdout.columns || 80 : undefined };
}
