import { type ArgsDef, parseArgs } from "citty";
import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { IonError } from "../errors.ts";
import { checkFlags } from "./_shared.ts";

/**
 * Strict flags, then citty's parse; more positional arguments than `max` is a usage error.
 * (The same rule as `ion sessions`, without importing the session store.) Used by `ion models` too.
 */
export function parseStrict<A extends ArgsDef>(command: string, rawArgs: string[], args: A, max: number) {
  checkFlags(command, rawArgs, args);
  const parsed = parseArgs(rawArgs, args);
  const extra = parsed._.slice(max);
  if (extra.length > 0)
    throw new IonError("usage", `unexpected argument "${extra[0]}" for "ion ${command}"`, {
      hint: `see \`ion ${command} --help\``,
    });
  return parsed;
}

/** The layered configuration of the working directory; its warnings go to stderr. */
export async function loadSettings(env: Record<string, string | undefined>): Promise<LoadedConfig> {
  const loaded = await loadConfig({ cwd: process.cwd(), env });
  for (const warning of loaded.warnings) process.stderr.write(`ion: warning: ${warning}\n`);
  return loaded;
}

/** Whether stdout is a terminal, and its width when it is. */
export function terminal(): { isTTY: boolean; width: number | undefined } {
  const isTTY = process.stdout.isTTY === true;
  return { isTTY, width: isTTY ? process.stdout.columns || 80 : undefined };
}
