import { type LoadedConfig, loadConfig } from "../config/load.ts";

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
