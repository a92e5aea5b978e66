import { lstat, mkdir, readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { IonError } from "../errors.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { errnoOf, errnoText } from "../util/error-text.ts";
import { findGitRoot } from "../util/git.ts";
import { isPlainObject } from "../util/plain-object.ts";
import { NOT_UTF8, PROJECT_FILE_MAX_BYTES, readProjectText } from "../util/project-file.ts";
import { holdsSecret } from "../util/secrets.ts";
import { configFiles, type Env } from "./paths.ts";
import type { Config, Keys, Layer } from "./schema.ts";

export type { Layer } from "./schema.ts";

/**
 * The schemas and their helpers, imported only when there is something to check: a run with no
 * config file, keys file or overrides does not load them (~2 ms of zod at start-up).
 */
type Schemas = typeof import("./schema.ts");
let schemas: Promise<Schemas> | undefined;
const loadSchemas = (): Promise<Schemas> => {
  schemas ??= import("./schema.ts");
  return schemas;
};

export interface LoadOptions {
  cwd: string;
  env?: Env;
  /** Settings from command-line flags, applied last. */
  overrides?: Config;
  /**
   * The user trusts this project: its file may also set what needs trust (project-rules.ts). `false`
   * is the trust gate's decision (trust.ts), which says itself what it left out; absent (a
   * command without the gate), a warning names the fields that need trust.
   */
  trustedProject?: boolean;
}

export interface LoadedConfig {
  config: Config;
  /** Dotted leaf path (`providers.openai.api_key`) → the layer that set it. */
  sources: Record<string, Layer>;
  warnings: string[];
  /** `keys.json`: provider id → key. Kept apart from `config` so its source stays known. */
  keys: Keys;
  files: { user: string; project: string; keys: string };
}

/** Built-in defaults: deliberately empty — no model is hard-coded, and features own their defaults. */
export const DEFAULT_CONFIG: Config = {};

/** Loads and layers configuration. Reads only: nothing is ever written while loading. */
export async function loadConfig(options: LoadOptions): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const files = configFiles(options.cwd, env);
  const warnings: string[] = [];
  const layers: Array<[Layer, Config]> = [["default", DEFAULT_CONFIG]];

  const user = await readJson(files.user);
  await warnIfSharedSecrets(files.user, user, warnings);
  if (user !== undefined) layers.push(["user", await checkConfig(files.user, user, warnings)]);

  const project =
    files.project === files.user ? undefined : await readProjectJson(files.project, options.cwd, warnings);
  if (project !== undefined) {
    const { filterProjectConfig, ignoredKeyWarnings } = await import("./project-rules.ts");
    const { kept, ignored } = filterProjectConfig(project, { trusted: options.trustedProject === true });
    // Decided by the trust gate (false, not absent): its own line has named what needs trust.
    const unsaid =
      options.trustedProject === false ? ignored.filter((key) => key.rule !== "trusted") : ignored;
    warnings.push(...ignoredKeyWarnings(files.project, files.user, unsaid));
    layers.push(["project", await checkConfig(files.project, kept, warnings)]);
  }

  const fromEnv: Config = {};
  if (env.ION_PROVIDER) fromEnv.provider = env.ION_PROVIDER;
  if (env.ION_MODEL) fromEnv.model = env.ION_MODEL;
  layers.push(["env", fromEnv]);
  if (options.overrides)
    layers.push(["flag", await checkConfig("command-line flags", options.overrides, warnings)]);

  const merged: Record<string, unknown> = {};
  const sources: Record<string, Layer> = {};
  for (const [layer, config] of layers) mergeInto(merged, config, layer, sources, "");

  const keys = await readKeys(files.keys, warnings);
  return { config: merged as Config, sources, warnings, keys, files };
}

async function checkConfig(file: string, raw: unknown, warnings: string[]): Promise<Config> {
  const { ConfigSchema, validate } = await loadSchemas();
  const result = validate(ConfigSchema, raw);
  if (!result.ok) throw new IonError("config", `${file}: ${result.error}`);
  for (const key of result.unknownKeys) warnings.push(`unknown key "${key}" in ${file}`);
  return result.value;
}

async function readKeys(file: string, warnings: string[]): Promise<Keys> {
  const raw = await readJson(file);
  if (raw === undefined) return {};
  const { KeysSchema, validate } = await loadSchemas();
  const result = validate(KeysSchema, raw);
  if (!result.ok) throw new IonError("config", `${file}: ${result.error}`);
  await warnIfShared(file, warnings);
  return result.value;
}

/** A file holding secrets that other accounts can read: one warning naming the fix. */
async function warnIfShared(file: string, warnings: string[]): Promise<void> {
  if (process.platform === "win32") return;
  const mode = (await stat(file)).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    warnings.push(`${file} is readable by other users (mode ${mode.toString(8)}); run: chmod 600 ${file}`);
  }
}

/** `config.json` too, when it holds a key, a secret header or URL credentials (keys.json always does). */
async function warnIfSharedSecrets(file: string, raw: unknown, warnings: string[]): Promise<void> {
  if (holdsSecret(raw)) await warnIfShared(file, warnings);
}

/** Deep merge: objects merge key by key, everything else (arrays included) replaces. */
function mergeInto(
  target: Record<string, unknown>,
  layer: Record<string, unknown>,
  label: Layer,
  sources: Record<string, Layer>,
  prefix: string,
): void {
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined || key === "__proto__") continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (isPlainObject(value)) {
      const current = target[key];
      const next: Record<string, unknown> = isPlainObject(current) ? current : {};
      target[key] = next;
      if (Object.keys(value).length === 0) sources[path] = label;
      mergeInto(next, value, label, sources, path);
    } else {
      target[key] = value;
      sources[path] = label;
    }
  }
}

function isMissing(err: unknown): boolean {
  const code = errnoOf(err);
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * The project's `.ion/config.json` through the project-file rules: a link out of the project, a
 * device or FIFO, a huge file or another user's file is skipped with a warning, never read.
 */
async function readProjectJson(file: string, cwd: string, warnings: string[]): Promise<unknown> {
  // Most projects have none: only when there is one is the project's root looked for.
  if (!(await entryExists(file))) return undefined;
  const read = readProjectText(file, findGitRoot(cwd)?.root ?? cwd);
  if (read.kind === "missing") return undefined;
  // A file ion may read but cannot decode is the user's to fix, as invalid JSON is.
  if (read.kind === "refused" && read.reason === NOT_UTF8)
    throw new IonError("config", `${file}: ${NOT_UTF8}`);
  if (read.kind === "refused") {
    warnings.push(`skipped ${file}: ${read.reason}`);
    return undefined;
  }
  return parseJson(file, read.text);
}

/** Something (a file, a link, even a dangling one) is at `file`. */
async function entryExists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/** Reads and parses a JSON file; `undefined` when it does not exist. An empty file is `{}`. */
export async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    // A config linked to a device or FIFO would be read forever: only a regular file of sane size is.
    const info = await stat(file);
    if (!info.isFile()) throw new IonError("config", `${file}: not a regular file`);
    if (info.size > PROJECT_FILE_MAX_BYTES) throw new IonError("config", `${file}: larger than 1 MiB`);
    text = await readFile(file, "utf8");
  } catch (err) {
    if (err instanceof IonError) throw err;
    if (isMissing(err)) return undefined;
    throw new IonError("io", `${file}: cannot read (${errnoText(err)})`, { cause: err });
  }
  return parseJson(file, text);
}

async function parseJson(file: string, raw: string): Promise<unknown> {
  let text = raw;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // The parser's own message can quote the offending token (maybe a key), so it is not shown.
    const { locateJsonError } = await loadSchemas();
    const where = locateJsonError(text);
    const detail = where ? ` at line ${where.line}, column ${where.column}: ${where.reason}` : "";
    throw new IonError("config", `${file}: invalid JSON${detail}`, { cause: err });
  }
}

/**
 * Writes JSON atomically (temp file + rename), private by default: a directory it creates is 0700, a
 * new file 0600. An existing file keeps its mode, less group and other access once it holds a secret.
 */
export async function atomicWriteJson(path: string, value: unknown, mode?: number): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const finalMode = mode ?? privateMode(await existingMode(path), value);
    // The directory is synced too: a setting or a key the user entered must survive a crash.
    await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, {
      mode: finalMode,
      durability: "directory",
    });
  } catch (err) {
    throw new IonError("io", `cannot write ${path} (${errnoText(err)})`, { cause: err });
  }
}

function privateMode(existing: number | undefined, value: unknown): number {
  if (existing === undefined) return 0o600;
  return holdsSecret(value) ? existing & 0o700 : existing;
}

async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

/** Stores a provider's key in `<configDir>/keys.json` (mode 0600; the directory 0700 when created). */
export async function writeKey(dir: string, providerId: string, key: string): Promise<void> {
  if (providerId === "" || key === "") throw new IonError("config", "a provider id and a key are required");
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
    throw new IonError("io", `cannot create the config directory ${dir} (${errnoText(err)})`, { cause: err });
  });
  const file = join(dir, "keys.json");
  // Under the file's lock: two parallel logins must both be kept.
  const { withFileLock } = await import("../util/file-lock.ts");
  await withFileLock(file, async () => {
    const raw = await readJson(file);
    const { KeysSchema, validate } = await loadSchemas();
    const current = raw === undefined ? { ok: true as const, value: {} } : validate(KeysSchema, raw);
    if (!current.ok) throw new IonError("config", `${file}: ${current.error}`);
    await atomicWriteJson(file, { ...current.value, [providerId]: key }, 0o600);
  });
}
