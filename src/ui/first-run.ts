import Fuse from "fuse.js";
import type { Catalog, LoadCatalogOptions, ModelInfo } from "../catalog/catalog.ts";
import { editConfig, isObject, unsetAt } from "../config/edit.ts";
import { type LoadedConfig, loadConfig, writeKey } from "../config/load.ts";
import { configDir, type Env } from "../config/paths.ts";
import { knownProviderIds, selectedProviderId } from "../config/resolve.ts";
import { describeError, IonError } from "../errors.ts";
import { BUILTIN_PROVIDERS, builtinProvider } from "../providers/registry.ts";
import { formatTokens } from "../util/numbers.ts";
import { maskKey } from "../util/secrets.ts";

/**
 * First-time setup (SPEC §7.1): provider → key → model, then save. Nothing is written until every
 * question is answered, so cancelling at any step leaves the files as they were. The prompts go
 * through a small `Prompter` interface: @clack/prompts on a terminal, plain objects in tests.
 */

export const CANCELLED: unique symbol = Symbol("cancelled");
export type Cancelled = typeof CANCELLED;

export interface Choice {
  value: string;
  label: string;
  hint?: string;
}

export interface Prompter {
  intro(title: string): void;
  outro(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  select(options: { message: string; options: Choice[]; initialValue?: string }): Promise<string | Cancelled>;
  /** A list narrowed as the user types: `choices(query)` is what to offer for the text typed so far. */
  search(options: {
    message: string;
    placeholder?: string;
    choices: (query: string) => Choice[];
    initialValue?: string;
  }): Promise<string | Cancelled>;
  text(options: {
    message: string;
    placeholder?: string;
    validate?: (value: string) => string | undefined;
  }): Promise<string | Cancelled>;
  /** Masked input. */
  password(options: {
    message: string;
    validate?: (value: string) => string | undefined;
  }): Promise<string | Cancelled>;
  /** Runs `work` under a spinner; Ctrl+C during it is CANCELLED. */
  spin<T>(message: string, work: () => Promise<T>, done: (value: T) => string): Promise<T | Cancelled>;
}

/** The two catalogue functions setup needs (tests pass their own). */
export interface CatalogApi {
  loadCatalog(options: LoadCatalogOptions): Promise<Catalog>;
  searchModels(models: ModelInfo[], query: string): ModelInfo[];
}

export interface FirstRunOptions {
  cwd?: string;
  env?: Env;
  /** How to ask: `clackPrompter()` from src/ui/prompter.ts on a terminal. */
  prompter: Prompter;
  catalog?: CatalogApi;
  /** The caller goes on to use the model (e.g. `ion run`): the outro suggests no command. */
  continuing?: boolean;
}

/** Whether setup can ask questions: stdin and stdout are both terminals. */
export function canPrompt(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

function need<T>(answer: T | Cancelled): T {
  if (answer === CANCELLED) throw new IonError("config", "setup cancelled");
  return answer;
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** Runs the setup flow; returns what was saved. */
export async function firstRun(options: FirstRunOptions): Promise<{ provider: string; model: string }> {
  const env = options.env ?? process.env;
  const loaded = await loadConfig({ cwd: options.cwd ?? process.cwd(), env });
  const ui = options.prompter;
  ui.intro("ion setup");

  const { choices: providers, ready } = providerChoices(loaded, env);
  const selected = selectedProviderId(loaded.config);
  const initial =
    providers.find((p) => p.value === selected) ?? providers.find((p) => ready.includes(p.value));
  const fuse = new Fuse(providers, { keys: ["value", "label"], threshold: 0.4, ignoreLocation: true });
  const providerId = need(
    await ui.search({
      message: "Which provider?",
      placeholder: "type to filter",
      choices: (query) => (query.trim() === "" ? providers : fuse.search(query.trim()).map((r) => r.item)),
      ...(initial ? { initialValue: initial.value } : {}),
    }),
  );
  const name = builtinProvider(providerId)?.name ?? loaded.config.providers?.[providerId]?.name ?? providerId;

  const newKey = await chooseKey(ui, loaded, env, providerId, name);
  const api = options.catalog ?? (await import("../catalog/catalog.ts"));
  const keys = newKey === undefined ? loaded.keys : { ...loaded.keys, [providerId]: newKey };
  const models = await providerModels(ui, api, { config: loaded.config, keys, env }, providerId, name);
  const model = await chooseModel(ui, api, providerId, name, models);

  // Every answer is in: only now is anything written.
  if (newKey !== undefined) await writeKey(configDir(env), providerId, newKey);
  const id = `${providerId}/${model}`;
  if (await saveModel(loaded, providerId, id, newKey !== undefined))
    ui.info(`removed the old plain-text key for ${providerId} from ${loaded.files.user}`);

  const layer = loaded.sources.model;
  if (layer === "env") ui.warn(`ION_MODEL is set in the environment and overrides this (${env.ION_MODEL})`);
  if (layer === "project") ui.warn(`${loaded.files.project} sets its own model, which wins in that project`);
  const saved = `saved model ${id} to ${loaded.files.user}`;
  ui.outro(options.continuing ? saved : `${saved}\n   try: ion run "say hello"`);
  return { provider: providerId, model };
}

/** Where an existing key for the provider would come from, as a "keep" choice; undefined when none. */
function existingKey(loaded: LoadedConfig, env: Env, id: string): string | undefined {
  const { config } = loaded;
  const fromConfig =
    config.providers?.[id]?.api_key ?? (selectedProviderId(config) === id ? config.api_key : undefined);
  if (nonEmpty(fromConfig)) return `keep the key in config.json (${maskKey(fromConfig)})`;
  const saved = loaded.keys[id];
  if (nonEmpty(saved)) return `keep the saved key (${maskKey(saved)})`;
  const envName = builtinProvider(id)?.keyEnv.find((n) => nonEmpty(env[n]));
  return envName ? `keep using $${envName}` : undefined;
}

/** Provider choices, each marked with its key status; `ready` lists those whose key is already there. */
function providerChoices(loaded: LoadedConfig, env: Env): { choices: Choice[]; ready: string[] } {
  const ready: string[] = [];
  const choices = knownProviderIds(loaded.config).map((id) => {
    const builtin = builtinProvider(id);
    const label = builtin?.name ?? loaded.config.providers?.[id]?.name ?? id;
    const envName = builtin?.keyEnv.find((n) => nonEmpty(env[n]));
    let mark: string;
    if (builtin && !builtin.needsKey) mark = "no key needed";
    else if (existingKey(loaded, env, id)?.startsWith("keep the")) mark = "key saved";
    else if (envName) mark = `${envName} set`;
    else mark = builtin ? "needs a key" : "openai-compatible";
    if (mark === "key saved" || envName) ready.push(id);
    return { value: id, label: `${label} (${mark})` };
  });
  return { choices, ready };
}

/** A usable key: one line, no spaces. The message never echoes the key. */
export function checkKeyText(value: string): string | undefined {
  const key = value.trim();
  if (key === "") return "paste the key (Ctrl+C cancels)";
  if (/\s/.test(key)) return "an API key has no spaces or line breaks";
  return undefined;
}

/** The new key to save, or undefined to keep what is there (or when none is needed). */
async function chooseKey(
  ui: Prompter,
  loaded: LoadedConfig,
  env: Env,
  id: string,
  name: string,
): Promise<string | undefined> {
  const builtin = builtinProvider(id);
  if (builtin && !builtin.needsKey) {
    ui.info(`${name} needs no API key`);
    return undefined;
  }
  const keep = existingKey(loaded, env, id);
  const paste: Choice = { value: "new", label: "paste a new key", hint: "saved to keys.json (mode 0600)" };
  const options: Choice[] | undefined = keep
    ? [{ value: "keep", label: keep }, paste]
    : builtin
      ? undefined
      : [paste, { value: "keep", label: "no key (a local server)" }];
  if (options && need(await ui.select({ message: `API key for ${name}`, options })) === "keep")
    return undefined;
  const key = need(await ui.password({ message: `Paste your ${name} API key`, validate: checkKeyText }));
  return key.trim();
}

async function providerModels(
  ui: Prompter,
  api: CatalogApi,
  input: LoadCatalogOptions,
  id: string,
  name: string,
): Promise<ModelInfo[]> {
  let catalog: Catalog | Cancelled;
  try {
    catalog = await ui.spin(
      `Fetching the ${name} model list`,
      () => api.loadCatalog(input),
      (c) => `${c.models.filter((m) => m.provider === id).length} ${name} models`,
    );
  } catch (err) {
    // Offline without a cache is not the end of setup: the model id can be typed.
    if (!(err instanceof IonError)) throw err;
    ui.warn(`no model list: ${describeError(err)}`);
    return [];
  }
  const { models, warnings } = need(catalog);
  for (const warning of warnings) ui.warn(warning);
  const own = models.filter((m) => m.provider === id);
  // Newest first: the likeliest pick is near the top.
  return own.sort(
    (a, b) => (b.release_date ?? "").localeCompare(a.release_date ?? "") || a.model.localeCompare(b.model),
  );
}

async function chooseModel(
  ui: Prompter,
  api: CatalogApi,
  id: string,
  name: string,
  models: ModelInfo[],
): Promise<string> {
  const strip = (text: string) => {
    const trimmed = text.trim();
    return trimmed.startsWith(`${id}/`) ? trimmed.slice(id.length + 1) : trimmed;
  };
  if (models.length === 0) {
    const typed = need(
      await ui.text({
        message: `Model id for ${name}`,
        placeholder:
          id === "ollama" ? "e.g. llama3.2 (see `ollama list`)" : "the id the provider's API expects",
        validate: (value) => (strip(value) === "" ? "type a model id" : undefined),
      }),
    );
    return strip(typed);
  }
  const width = Math.min(40, Math.max(...models.map((m) => m.model.length)));
  const choice = (m: ModelInfo): Choice => ({
    value: m.model,
    label: `${m.model.padEnd(width)}  ${formatContext(m.context).padStart(5)} ctx  ${formatPrice(m)}`,
    ...(m.name && m.name !== m.model ? { hint: m.name } : {}),
  });
  const all = models.map(choice);
  const picked = need(
    await ui.search({
      message: `Which ${name} model?`,
      placeholder: "type to search, or type any model id",
      choices: (query) => {
        const typed = strip(query);
        if (typed === "") return all;
        const found = api.searchModels(models, typed).map(choice);
        if (found.some((c) => c.value === typed)) return found;
        return [...found, { value: typed, label: `use "${typed}"`, hint: "a model id not in the list" }];
      },
    }),
  );
  return strip(picked);
}

/** 200000 → "200k", 1048576 → "1M", null → "?". */
export function formatContext(tokens: number | null): string {
  return tokens === null ? "?" : formatTokens(tokens);
}

/** "$3/$15 per 1M", "free", "price unknown". */
export function formatPrice(m: Pick<ModelInfo, "input_cost" | "output_cost">): string {
  if (m.input_cost === null || m.output_cost === null) return "price unknown";
  if (m.input_cost === 0 && m.output_cost === 0) return "free";
  const dollars = (n: number) => `$${Number(n.toFixed(n < 1 ? 3 : 2))}`;
  return `${dollars(m.input_cost)}/${dollars(m.output_cost)} per 1M`;
}

/**
 * Writes `model` to the user config (and drops a plain-text key for the provider when a new one went
 * to keys.json; true when it did). A `provider` there is switched to the chosen one (else it would
 * claim the model), and a flat-form top-level `api_key`/`api_base` that belonged to the previous
 * provider moves under `providers.<previous>` so it keeps applying to that provider only.
 */
async function saveModel(
  loaded: LoadedConfig,
  providerId: string,
  id: string,
  newKey: boolean,
): Promise<boolean> {
  let droppedKey = false;
  await editConfig(loaded.files.user, "model", (draft) => {
    const previous = selectedProviderId(draft);
    // A key in config.json comes before keys.json: the old one must go for the new one to count.
    if (newKey) {
      droppedKey = unsetAt(draft, ["providers", providerId, "api_key"]);
      if (previous === providerId) droppedKey = unsetAt(draft, ["api_key"]) || droppedKey;
    }
    if (previous !== undefined && previous !== providerId) {
      for (const field of ["api_key", "api_base"] as const) {
        if (!Object.hasOwn(draft, field)) continue;
        const providers = isObject(draft.providers) ? draft.providers : {};
        const entry = isObject(providers[previous]) ? providers[previous] : {};
        if (!Object.hasOwn(entry, field)) entry[field] = draft[field];
        providers[previous] = entry;
        draft.providers = providers;
        delete draft[field];
      }
    }
    if (typeof draft.provider === "string") draft.provider = providerId;
    draft.model = id;
    return true;
  });
  return droppedKey;
}

/** [provider id, env var name] of each provider key or base URL set in the environment (names only). */
function keyVarsFound(env: Env): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const p of BUILTIN_PROVIDERS) {
    const names = p.needsKey ? p.keyEnv : p.baseURLEnv ? [p.baseURLEnv] : [];
    for (const n of names) if (nonEmpty(env[n])) found.push([p.id, n]);
  }
  return found;
}

/** The command that sets a model, naming the provider whose key is already in the environment. */
function setModelCommand(found: [string, string][]): string {
  const ready = found.find(([id]) => id === "anthropic") ?? found[0];
  return ready && ready[0] !== "anthropic"
    ? `\`ion config set model ${ready[0]}/MODEL\` (\`ion models --provider ${ready[0]}\` lists them)`
    : "`ion config set model anthropic/claude-sonnet-4-5` (or any id from `ion models`)";
}

/** " (found in the environment: OPENAI_API_KEY)", names only; "" when none is set. */
function foundNote(found: [string, string][]): string {
  return found.length > 0 ? ` (found in the environment: ${found.map(([, n]) => n).join(", ")})` : "";
}

/**
 * `ion run` with no model and no terminal to ask on: the error as one line, and one hint line with
 * the commands (naming the provider whose key is already in the environment).
 */
export function noModelMessage(env: Env): { message: string; hint: string } {
  const found = keyVarsFound(env);
  return {
    message: `no model configured${foundNote(found)}`,
    hint: `run ${setModelCommand(found)}, or \`ion config init\` on a terminal, or pass -m provider/model`,
  };
}

/** `ion config init` without a terminal to ask on: one line, and one hint saying what to run instead. */
export function initInstructions(env: Env): { message: string; hint: string } {
  const found = keyVarsFound(env);
  return {
    message: `\`ion config init\` needs an interactive terminal${foundNote(found)}`,
    hint: `run ${setModelCommand(found)} instead${found.length > 0 ? "" : ", and `ion providers login anthropic` (or set ANTHROPIC_API_KEY)"}`,
  };
}
