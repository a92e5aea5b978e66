import { join } from "node:path";
import Fuse from "fuse.js";
import { core } from "zod/mini";
import { IonError } from "../errors.ts";
import { ollamaBaseURL } from "../providers/registry.ts";
import { withFileLock } from "../util/file-lock.ts";
import { atomicWriteJson, readJson } from "./load.ts";
import { ConfigSchema, formatPath, KeysSchema, validate } from "./schema.ts";

/**
 * Dotted-path reads and edits of a config file (`ion config get/set/unset`). Every edit is validated
 * against `ConfigSchema` before anything is written; the file keeps its key order (new keys go last)
 * and is written atomically. API keys never go through here: they belong in keys.json.
 */

export type JsonObject = Record<string, unknown>;

const FORBIDDEN = new Set(["__proto__", "prototype", "constructor"]);

/** `providers.openai.api_base` → `["providers", "openai", "api_base"]`. */
export function parseKeyPath(text: string): string[] {
  const segments = text.split(".");
  if (text.trim() === "" || segments.some((s) => s === ""))
    throw new IonError("usage", `"${text}" is not a setting name`, {
      hint: "use a dotted path such as `model` or `providers.openai.api_base`",
    });
  const bad = segments.find((s) => FORBIDDEN.has(s));
  if (bad !== undefined) throw new IonError("usage", `"${bad}" cannot be part of a setting name`);
  return segments;
}

/** VALUE as JSON when it parses (numbers, booleans, null, arrays, objects, "quoted"), else the text itself. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return text;
    throw err;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function arrayIndex(segment: string, length: number): number | undefined {
  if (!/^\d+$/.test(segment)) return undefined;
  const n = Number(segment);
  return n <= length ? n : undefined;
}

/** The value at `path`, or undefined. Arrays are indexed by number: `tools.disabled.0`. */
export function getAt(root: unknown, path: readonly string[]): unknown {
  let node: unknown = root;
  for (const segment of path) {
    if (Array.isArray(node)) {
      const i = arrayIndex(segment, node.length - 1);
      node = i === undefined ? undefined : node[i];
    } else if (isObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `a ${typeof value}`;
}

/** Sets `path` in `root` (in place), creating objects on the way. An existing key keeps its place. */
export function setAt(root: JsonObject, path: readonly string[], value: unknown): void {
  let node: JsonObject | unknown[] = root;
  for (const [depth, segment] of path.entries()) {
    const last = depth === path.length - 1;
    const where = path.slice(0, depth).join(".");
    if (Array.isArray(node)) {
      const i = arrayIndex(segment, node.length);
      if (i === undefined)
        throw new IonError(
          "config",
          `cannot set ${path.join(".")}: ${where} is an array of ${node.length}; use an index up to ${node.length}`,
        );
      if (last) {
        node[i] = value;
        return;
      }
      node[i] ??= {};
      const next: unknown = node[i];
      if (!isObject(next) && !Array.isArray(next))
        throw new IonError(
          "config",
          `cannot set ${path.join(".")}: ${where}.${segment} is ${describe(next)}`,
        );
      node = next;
      continue;
    }
    if (last) {
      node[segment] = value;
      return;
    }
    if (!Object.hasOwn(node, segment) || node[segment] === undefined) node[segment] = {};
    const next = node[segment];
    if (!isObject(next) && !Array.isArray(next)) {
      const at = where === "" ? segment : `${where}.${segment}`;
      throw new IonError(
        "config",
        `cannot set ${path.join(".")}: ${at} is ${describe(next)}, not an object`,
        {
          hint: `unset ${at} first, or set it to an object`,
        },
      );
    }
    node = next;
  }
}

/** Removes `path` from `root` (in place); objects left empty by the removal go too. */
export function unsetAt(root: JsonObject, path: readonly string[]): boolean {
  const parents: Array<JsonObject | unknown[]> = [];
  let node: unknown = root;
  for (const segment of path.slice(0, -1)) {
    if (!isObject(node) && !Array.isArray(node)) return false;
    parents.push(node);
    node = getAt(node, [segment]);
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) {
    const i = arrayIndex(last, node.length - 1);
    if (i === undefined) return false;
    node.splice(i, 1);
    return true;
  }
  if (!isObject(node) || !Object.hasOwn(node, last)) return false;
  delete node[last];
  // Prune objects this removal emptied, innermost first; arrays are values and stay.
  for (let depth = path.length - 2; depth >= 0; depth--) {
    const parent = parents[depth];
    const key = path[depth]!;
    const child = getAt(parent, [key]);
    if (!isObject(parent) || !isObject(child) || Object.keys(child).length > 0) break;
    delete parent[key];
  }
  return true;
}

/** Where an API key path points: `api_key` (the selected provider's) or `providers.<id>.api_key`. */
export type KeyRef = { kind: "top" } | { kind: "provider"; providerId: string };

export function keyRef(path: readonly string[]): KeyRef | undefined {
  if (path.length === 1 && path[0] === "api_key") return { kind: "top" };
  if (path.length === 3 && path[0] === "providers" && path[2] === "api_key")
    return { kind: "provider", providerId: path[1]! };
  return undefined;
}

/** Whether a value (e.g. a whole `providers` object being set) carries an `api_key` anywhere. */
export function containsApiKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsApiKey);
  if (!isObject(value)) return false;
  return Object.entries(value).some(([k, v]) => k === "api_key" || containsApiKey(v));
}

// The config schema is zod/mini: it is walked through zod's core classes, which both APIs share.
type Schema = core.$ZodType;

function unwrap(schema: Schema): Schema {
  let current = schema;
  while (current instanceof core.$ZodOptional || current instanceof core.$ZodNullable) {
    current = current._zod.def.innerType;
  }
  return current;
}

function isCatchall(schema: Schema | undefined): schema is Schema {
  return schema !== undefined && !(schema instanceof core.$ZodNever);
}

/** The schema of the value at `path`, `null` when anything goes there, undefined when nothing may. */
function schemaAt(path: readonly string[]): Schema | null | undefined {
  let schema: Schema = ConfigSchema;
  for (const segment of path) {
    const node = unwrap(schema);
    let next: Schema | undefined;
    if (node instanceof core.$ZodObject) {
      const shape: Record<string, Schema> = node._zod.def.shape;
      const catchall = node._zod.def.catchall;
      next = Object.hasOwn(shape, segment) ? shape[segment] : isCatchall(catchall) ? catchall : undefined;
    } else if (node instanceof core.$ZodRecord) next = node._zod.def.valueType;
    else if (node instanceof core.$ZodArray) next = /^\d+$/.test(segment) ? node._zod.def.element : undefined;
    else if (node instanceof core.$ZodUnknown || node instanceof core.$ZodAny) return null;
    if (next === undefined) return undefined;
    schema = next;
  }
  return schema;
}

/** The names a strict object allows at `parent` (for "did you mean"); undefined when any name goes. */
export function knownKeysAt(parent: readonly string[]): string[] | undefined {
  const schema = schemaAt(parent);
  if (!schema) return undefined;
  const node = unwrap(schema);
  if (!(node instanceof core.$ZodObject)) return undefined;
  if (isCatchall(node._zod.def.catchall)) return undefined;
  return Object.keys(node._zod.def.shape);
}

/** Whether the schema knows `path` (records such as `providers.<id>` accept any id). */
export function isKnownPath(path: readonly string[]): boolean {
  return schemaAt(path) !== undefined;
}

/** `modle` → `model`: the closest known name at the first unknown segment of `path`. */
export function suggestPath(path: readonly string[]): string | undefined {
  for (let depth = 0; depth < path.length; depth++) {
    if (schemaAt(path.slice(0, depth + 1)) !== undefined) continue;
    const known = knownKeysAt(path.slice(0, depth));
    if (!known) return undefined;
    const match = new Fuse(known, { threshold: 0.4 }).search(path[depth]!)[0]?.item;
    return match === undefined
      ? undefined
      : [...path.slice(0, depth), match, ...path.slice(depth + 1)].join(".");
  }
  return undefined;
}

/** A base URL must be an http(s) URL; ollama's may also be `host:port`, as OLLAMA_HOST is. */
export function checkBaseURL(providerId: string | undefined, value: string): string | undefined {
  if (value.trim() === "") return undefined;
  let url: URL | null;
  try {
    url = URL.parse(providerId === "ollama" ? ollamaBaseURL(value) : value.trim());
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    url = null;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return undefined;
  return providerId === "ollama"
    ? "expected a URL or host:port, e.g. http://127.0.0.1:11434"
    : "expected an http(s) URL, e.g. https://api.example.com/v1";
}

/** Every string `api_base` in a config: dotted path → [provider id it belongs to, value]. */
function baseURLs(config: JsonObject): Map<string, [string | undefined, string]> {
  const out = new Map<string, [string | undefined, string]>();
  if (typeof config.api_base === "string") {
    const model = typeof config.model === "string" ? config.model : "";
    const owner = typeof config.provider === "string" ? config.provider : model.split("/", 1)[0];
    out.set("api_base", [owner, config.api_base]);
  }
  if (isObject(config.providers)) {
    for (const [id, entry] of Object.entries(config.providers)) {
      if (isObject(entry) && typeof entry.api_base === "string")
        out.set(`providers.${id}.api_base`, [id, entry.api_base]);
    }
  }
  return out;
}

export interface EditResult {
  /** False when the edit changed nothing, so nothing was written. */
  changed: boolean;
  /** Unknown keys the edit introduced (warned about, still written), each with a suggestion if any. */
  unknownKeys: Array<{ key: string; suggestion?: string }>;
}

/** Reads a config file as a plain object; a missing file is `{}`. */
export async function readConfigObject(file: string): Promise<JsonObject> {
  const raw = await readJson(file);
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new IonError("config", `${file}: expected a JSON object at the top level`);
  return raw;
}

/**
 * Applies `edit` to a copy of the file's object, validates the result with `ConfigSchema` and writes
 * it atomically. `edit` returns whether it changed anything. An invalid result throws and leaves the
 * file byte-for-byte as it was. `label` names the setting in error messages. The whole read-modify-write
 * holds the file's lock, so parallel edits (`ion config set` × 8) all land.
 */
export function editConfig(
  file: string,
  label: string,
  edit: (draft: JsonObject) => boolean,
): Promise<EditResult> {
  return withFileLock(file, () => editUnlocked(file, label, edit));
}

async function editUnlocked(
  file: string,
  label: string,
  edit: (draft: JsonObject) => boolean,
): Promise<EditResult> {
  const original = await readConfigObject(file);
  const draft = structuredClone(original);
  if (!edit(draft)) return { changed: false, unknownKeys: [] };

  const result = validate(ConfigSchema, draft);
  if (!result.ok) {
    const own = [":", ".", "["].some((next) => result.error.startsWith(`${label}${next}`));
    throw new IonError(
      "config",
      own ? `cannot set ${result.error}` : `cannot set ${label}: ${file} would be invalid at ${result.error}`,
    );
  }
  const before = baseURLs(original);
  for (const [path, [owner, value]] of baseURLs(draft)) {
    if (before.get(path)?.[1] === value) continue;
    const problem = checkBaseURL(owner, value);
    if (problem) throw new IonError("config", `cannot set ${path}: ${problem}`);
  }

  const old = validate(ConfigSchema, original);
  const known = new Set(old.ok ? old.unknownKeys : []);
  const unknownKeys = result.unknownKeys
    .filter((key) => !known.has(key))
    .map((key) => {
      const suggestion = suggestPath(key.split("."));
      return suggestion === undefined ? { key } : { key, suggestion };
    });
  await atomicWriteJson(file, draft);
  return { changed: true, unknownKeys };
}

/** How validation names `path`: `tools.disabled.0` → `tools.disabled[0]`. */
function label(path: readonly string[]): string {
  return formatPath(path.map((s) => (/^\d+$/.test(s) ? Number(s) : s)));
}

export function setConfigValue(file: string, path: readonly string[], value: unknown): Promise<EditResult> {
  return editConfig(file, label(path), (draft) => {
    if (Object.is(getAt(draft, path), value)) return false;
    setAt(draft, path, value);
    return true;
  });
}

export function unsetConfigValue(file: string, path: readonly string[]): Promise<EditResult> {
  return editConfig(file, label(path), (draft) => unsetAt(draft, path));
}

/** Removes a provider's key from `<dir>/keys.json` (under its lock); false when there was none. */
export function removeKey(dir: string, providerId: string): Promise<boolean> {
  const file = join(dir, "keys.json");
  return withFileLock(file, () => removeKeyUnlocked(file, providerId));
}

async function removeKeyUnlocked(file: string, providerId: string): Promise<boolean> {
  const raw = await readJson(file);
  if (raw === undefined) return false;
  const current = validate(KeysSchema, raw);
  if (!current.ok) throw new IonError("config", `${file}: ${current.error}`);
  if (!Object.hasOwn(current.value, providerId)) return false;
  const { [providerId]: _removed, ...rest } = current.value;
  await atomicWriteJson(file, rest, 0o600);
  return true;
}
