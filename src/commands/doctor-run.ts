/**
 * `ion doctor` (see doctor.ts): the checks run at once — the providers' requests, the release's
 * VERSION, the MCP servers and the sandbox probe in parallel — and print in a fixed order.
 */
import { configChecks } from "../doctor/config-check.ts";
import { keyChecks } from "../doctor/keys-check.ts";
import { dataDirCheck, sandboxCheck, terminalCheck } from "../doctor/local-checks.ts";
import { mcpChecks } from "../doctor/mcp-check.ts";
import { providerChecks } from "../doctor/provider-check.ts";
import type { Check } from "../doctor/types.ts";
import { versionCheck } from "../doctor/version-check.ts";
import { IonError } from "../errors.ts";
import { colorEnabled, createStyle } from "../ui/style.ts";
import { messageOf } from "../util/error-text.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { parseStrict } from "./_shared.ts";
import { doctorArgs } from "./doctor.ts";

const DEFAULT_TIMEOUT_MS = 5_000;
const MARKS: Record<Check["status"], string> = { ok: "✓", warn: "!", fail: "✗" };

export async function doctor(rawArgs: string[]): Promise<void> {
  const args = parseStrict("doctor", rawArgs, doctorArgs, 0);
  const timeoutMs = typeof args.timeout === "string" ? parseSeconds(args.timeout) : DEFAULT_TIMEOUT_MS;
  const env = process.env;
  const cwd = process.cwd();

  const config = await configChecks(cwd, env);
  // A broken file: the rest is checked with built-in defaults and the environment, as far as it goes.
  const settings = config.loaded ?? { config: {}, keys: {} };
  const [providers, dataDir, sandbox, mcp, version] = await Promise.all([
    providerChecks(settings.config, settings.keys, env, timeoutMs),
    dataDirCheck(env),
    sandboxCheck(settings.config, env),
    config.loaded === undefined ? skippedMcp() : guarded("mcp", "MCP", mcpChecks()),
    versionCheck(env, timeoutMs),
  ]);
  const checks: Check[] = [
    ...config.checks,
    ...keyChecks(settings.config, settings.keys, env),
    ...providers,
    terminalCheck(env),
    dataDir,
    sandbox,
    ...mcp,
    version,
  ];

  if (args.json === true) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  else {
    const style = createStyle(colorEnabled(process.stdout.isTTY === true, env));
    const paint = { ok: style.green, warn: style.bold, fail: style.red };
    for (const item of checks) {
      const line = `${item.title}: ${item.detail}${item.fix === undefined ? "" : ` → ${item.fix}`}`;
      process.stdout.write(`${paint[item.status](MARKS[item.status])} ${safeForTerminal(line)}\n`);
    }
  }
  const failed = checks.filter((item) => item.status === "fail").length;
  if (failed > 0)
    throw new IonError("config", `${failed} ${failed === 1 ? "check" : "checks"} failed (✗)`, {
      hint: "each ✗ line says what to do",
    });
}

/** `--timeout 0.5` → 500 ms. */
function parseSeconds(text: string): number {
  const value = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(value > 0)) throw new IonError("usage", `--timeout takes a number of seconds above 0, got "${text}"`);
  return Math.round(value * 1000);
}

async function skippedMcp(): Promise<Check[]> {
  return [
    {
      id: "mcp",
      status: "warn",
      title: "MCP",
      detail: "not checked: the configuration does not load",
      fix: "fix the config first",
    },
  ];
}

/** A check that failed unexpectedly is that check's ✗, not the end of the report. */
async function guarded(id: string, title: string, work: Promise<Check[]>): Promise<Check[]> {
  try {
    return await work;
  } catch (err) {
    return [{ id, status: "fail", title, detail: messageOf(err), fix: "ion mcp list says more" }];
  }
}
