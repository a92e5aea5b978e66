import { type LoadedConfig, loadConfig } from "../config/load.ts";

export { terminal } from "../util/fd-writer.ts";

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
