import { isAbsolute, join, resolve } from "node:path";
import { IonError } from "../errors.ts";

/**
 * XDG locations. Every function takes the environment as an argument so tests pass their own and
 * never touch the real home directory.
 */
export type Env = Record<string, string | undefined>;

/**
 * The user's home: `$HOME`, else the password database's. Neither (`docker run --user 12345` without
 * HOME) is a config error that says what to set.
 */
export function homeDir(env: Env = process.env): string {
  const given = nonEmpty(env.HOME);
  if (given !== undefined) return given;
  // node:os costs ~1 ms to load on every command; HOME is set almost everywhere, so load it only without.
  const { homedir } = require("node:os") as typeof import("node:os");
  try {
    return homedir();
  } catch (err) {
    throw new IonError("config", "cannot find a home directory: HOME is not set and this user has none", {
      hint: "set HOME, or ION_CONFIG_DIR, ION_DATA_DIR and XDG_CACHE_HOME",
      cause: err,
    });
  }
}

/** The home directory for display (`~/…`) and lookups that can do without one: undefined when none. */
/**
 * A directory as configured (`workspace.allow`, `--add-dir`) as an absolute path: `~` and `~/x` mean
 * the user's home, as in a shell; a relative one is relative to `root`.
 */
export function configuredDir(root: string, dir: string): string {
  if (dir === "~") return homeDir();
  return resolve(root, dir.startsWith("~/") ? join(homeDir(), dir.slice(2)) : dir);
}

export function homeDirIfKnown(env: Env = process.env): string | undefined {
  try {
    return homeDir(env);
  } catch (err) {
    if (err instanceof IonError) return undefined; // no home: nothing to abbreviate or look in
    throw err;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** XDG base directories must be absolute; a relative value is ignored, as the spec says. */
function xdg(env: Env, name: string): string | undefined {
  const value = nonEmpty(env[name]);
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

function own(env: Env, name: string): string | undefined {
  const value = nonEmpty(env[name]);
  return value === undefined ? undefined : resolve(value);
}

/** `$ION_CONFIG_DIR` › `$XDG_CONFIG_HOME/ion` › `~/.config/ion`. */
export function configDir(env: Env = process.env): string {
  const base = xdg(env, "XDG_CONFIG_HOME");
  return own(env, "ION_CONFIG_DIR") ?? (base ? join(base, "ion") : join(homeDir(env), ".config", "ion"));
}

/** `$ION_DATA_DIR` › `$XDG_DATA_HOME/ion` › `~/.local/share/ion`. */
export function dataDir(env: Env = process.env): string {
  const base = xdg(env, "XDG_DATA_HOME");
  return (
    own(env, "ION_DATA_DIR") ?? (base ? join(base, "ion") : join(homeDir(env), ".local", "share", "ion"))
  );
}

/** The chat's input history in the data dir (what was typed, for ↑), which `ion reset` removes. */
export const INPUT_HISTORY_NAME = "input_history.jsonl";

export function inputHistoryFile(env: Env = process.env): string {
  return join(dataDir(env), INPUT_HISTORY_NAME);
}

/** `$XDG_CACHE_HOME/ion` › `~/.cache/ion`. */
export function cacheDir(env: Env = process.env): string {
  const base = xdg(env, "XDG_CACHE_HOME");
  return base ? join(base, "ion") : join(homeDir(env), ".cache", "ion");
}

/** The files configuration is read from. */
export function configFiles(
  cwd: string,
  env: Env = process.env,
): { user: string; project: string; keys: string } {
  const dir = configDir(env);
  return {
    user: join(dir, "config.json"),
    project: join(resolve(cwd), ".ion", "config.json"),
    keys: join(dir, "keys.json"),
  };
}
