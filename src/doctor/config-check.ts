/**
 * The configuration as a session here would load it (the project trusted only when remembered or
 * ION_TRUST_PROJECT says so: a doctor asks nothing), which files exist, and the loader's own errors and
 * warnings. A broken file is a ✗ and the other checks go on with built-in defaults and the environment.
 */
import { existsSync } from "node:fs";
import { tildePath } from "../commands/_shared.ts";
import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { configFiles, type Env } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { messageOf } from "../util/error-text.ts";
import { type Check, check } from "./types.ts";

export interface ConfigOutcome {
  checks: Check[];
  /** The loaded configuration; undefined when a file is broken. */
  loaded: LoadedConfig | undefined;
}

export async function configChecks(cwd: string, env: Env): Promise<ConfigOutcome> {
  const files = configFiles(cwd, env);
  const found = [
    ["user config", files.user],
    ["project config", files.project],
    ["keys.json", files.keys],
  ] as const;
  const present = found
    .filter(([, path]) => existsSync(path))
    .map(([what, path]) => `${what} ${tildePath(path)}`);
  const absent = found.filter(([, path]) => !existsSync(path)).map(([what]) => what);
  const listing = [
    present.length === 0 ? "no config files (built-in defaults)" : present.join(", "),
    ...(absent.length > 0 && present.length > 0 ? [`no ${absent.join(", no ")}`] : []),
  ].join("; ");
  let loaded: LoadedConfig;
  let trustLines: string[] = [];
  try {
    const { decideTrust } = await import("../config/trust.ts");
    const trust = await decideTrust({ cwd, env, flag: false, interactive: false });
    loaded = await loadConfig({ cwd, env, trustedProject: trust.trusted });
    trustLines = [...trust.warnings, ...trust.project.warnings];
  } catch (err) {
    if (!(err instanceof IonError)) throw err;
    const fail = check(
      "config",
      "config",
      "fail",
      messageOf(err),
      err.hint ?? "correct the file, or move it away; every command stops on it until then",
    );
    return { checks: [fail], loaded: undefined };
  }
  const checks = [check("config", "config", "ok", listing)];
  for (const warning of new Set([...trustLines, ...loaded.warnings]))
    checks.push(check("config-warning", "config", "warn", warning, fixOf(warning)));
  return { checks, loaded };
}

/** The loader's warnings say their own fix after "run:"; the others name the file to edit. */
function fixOf(warning: string): string {
  const run = /; run: (.+)$/.exec(warning);
  return run?.[1] !== undefined ? `run: ${run[1]}` : "edit the file it names";
}
