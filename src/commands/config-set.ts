import Fuse from "fuse.js";
import {
  containsApiKey,
  type EditResult,
  getAt,
  isKnownPath,
  type JsonObject,
  type KeyRef,
  keyRef,
  parseKeyPath,
  parseValue,
  readConfigObject,
  removeKey,
  setAt,
  setConfigValue,
  suggestPath,
  unsetConfigValue,
} from "../config/edit.ts";
import { type LoadedConfig, loadConfig, writeKey } from "../config/load.ts";
import { configDir, configFiles, type Env } from "../config/paths.ts";
import { projectKeyRule } from "../config/project-rules.ts";
import { knownProviderIds, resolveModel, selectedProviderId } from "../config/resolve.ts";
import { IonError } from "../errors.ts";
import { builtinProvider } from "../providers/registry.ts";
import { maskConfigSecrets, maskKey } from "../util/secrets.ts";
import { loadSettings } from "./_settings.ts";
import { parseStrict } from "./_shared.ts";
import { initArgs, setArgs, unsetArgs } from "./config.ts";
import { checkKey, readKey } from "./config-key.ts";

function requireKey(command: string, key: unknown): string {
  if (typeof key === "string" && key !== "") return key;
  throw new IonError("usage", `"ion config ${command}" needs a setting name`, {
    hint:
      command === "set" ? "e.g. `ion config set thinking high`" : `e.g. \`ion config ${command} thinking\``,
  });
}

function warnUnknown(result: EditResult, file: string): void {
  for (const { key, suggestion } of result.unknownKeys) {
    const guess = suggestion ? ` (did you mean ${suggestion}?)` : "";
    process.stderr.write(`ion: warning: unknown key "${key}" in ${file}${guess}; written anyway\n`);
  }
}

/** `ion config set KEY VALUE [--project]`. */
export async function setConfig(rawArgs: string[]): Promise<void> {
  const args = parseStrict("config set", rawArgs, setArgs, 2);
  const name = requireKey("set", args.key);
  const path = parseKeyPath(name);
  const env = process.env;
  const files = configFiles(process.cwd(), env);
  const ref = keyRef(path);
  if (ref) {
    if (args.project === true) throw projectKeyError();
    await setApiKey(ref, name, typeof args.value === "string" ? args.value : undefined, env);
    return;
  }
  if (typeof args.value !== "string")
    throw new IonError("usage", `"ion config set ${name}" needs a VALUE`, {
      hint: `e.g. \`ion config set ${name} VALUE\`; \`ion config unset ${name}\` removes it`,
    });
  let value = parseValue(args.value);
  if (containsApiKey(value))
    throw new IonError("config", "API keys are not written to config.json", {
      hint: "set each one on its own, e.g. `ion config set providers.openai.api_key -` (saved to keys.json)",
    });
  // What `loadConfig` ignores in a project file (project-rules.ts): writing it there would do nothing.
  if (args.project === true && projectKeyRule(path) !== "project")
    throw new IonError(
      "config",
      projectKeyRule(path) === "trusted"
        ? `a project file cannot set ${name} until you trust the project`
        : `a project file cannot set ${name}: only your user config can`,
      { hint: `drop --project to set it in ${files.user}` },
    );
  const file = args.project === true ? files.project : files.user;
  if (path.length === 1 && (name === "model" || name === "provider"))
    await checkModelSetting(name, args.value, args.project === true ? "project" : "user", env);
  const set = async (setting: unknown) => {
    if (path[0] === "mcpServers") await checkMcpSetting(file, path, name, setting);
    return setConfigValue(file, path, setting);
  };
  let result: EditResult;
  try {
    result = await set(value);
  } catch (err) {
    // `set name 42` where a string belongs: the text itself may be what was meant.
    if (!(err instanceof IonError && (typeof value === "number" || typeof value === "boolean"))) throw err;
    const asText = args.value;
    result = await set(asText).catch((retryErr: unknown) => {
      // The JSON reading's error is the one to show: it names what the field expects.
      throw retryErr instanceof IonError ? err : retryErr;
    });
    value = asText;
  }
  warnUnknown(result, file);
  process.stdout.write(`${name} = ${JSON.stringify(shownValue(path, value))}  (${file})\n`);
  if (file === files.user) await noteOverride(name, path, env, files.project);
}

/**
 * `model` and `provider` are checked as a run would read them, with the other layers in effect: a
 * value no run could use (`gpt-4o` with no provider, `nosuch/x`) is refused and the file left as it was.
 */
async function checkModelSetting(
  name: "model" | "provider",
  value: string,
  layer: "user" | "project",
  env: Env,
): Promise<void> {
  const loaded = await loadConfig({ cwd: process.cwd(), env });
  const known = knownProviderIds(loaded.config);
  if (name === "provider") {
    if (known.includes(value)) return;
    const guess = new Fuse(known, { threshold: 0.4 }).search(value)[0]?.item;
    throw new IonError("config", `cannot set provider: unknown provider "${value}"`, {
      hint: `${guess ? `did you mean ${guess}? ` : ""}known: ${known.join(", ")}; define others under "providers" with an "api_base"`,
    });
  }
  if (value.trim() === "")
    throw new IonError("config", "cannot set model to nothing", {
      hint: "`ion config unset model` removes it",
    });
  const config = { ...loaded.config, model: value };
  try {
    resolveModel(config, undefined, { ...loaded.sources, model: layer });
  } catch (err) {
    if (!(err instanceof IonError)) throw err;
    const bare = !value.includes("/");
    throw new IonError("config", `cannot set model: ${err.message}`, {
      hint: bare
        ? `write it as provider/model, e.g. \`ion config set model <provider>/${value}\`, or set \`provider\` first; \`ion models\` lists them`
        : err.hint,
    });
  }
}

/** An MCP server that could not start is refused before anything is written (src/mcp/setting.ts). */
async function checkMcpSetting(file: string, path: string[], name: string, value: unknown): Promise<void> {
  const { mcpSettingProblem } = await import("../mcp/setting.ts");
  const problem = mcpSettingProblem(await readConfigObject(file), path, value, file);
  if (problem !== undefined) throw new IonError("config", `cannot set ${name}: ${problem}`);
}

/** A value just set, as echoed: header secrets and URL credentials masked as `config show` masks them. */
function shownValue(path: readonly string[], value: unknown): unknown {
  const holder: JsonObject = {};
  setAt(holder, path, structuredClone(value));
  maskConfigSecrets(holder);
  return getAt(holder, path);
}

/** `ion config unset KEY [--project]`: removing something that is not set is not an error. */
export async function unsetConfig(rawArgs: string[]): Promise<void> {
  const args = parseStrict("config unset", rawArgs, unsetArgs, 1);
  const name = requireKey("unset", args.key);
  const path = parseKeyPath(name);
  const env = process.env;
  const ref = keyRef(path);
  if (ref) {
    if (args.project === true) throw projectKeyError();
    await unsetApiKey(ref, name, env);
    return;
  }
  const files = configFiles(process.cwd(), env);
  const file = args.project === true ? files.project : files.user;
  const result = await unsetConfigValue(file, path);
  if (result.changed) {
    process.stdout.write(`removed ${name} from ${file}\n`);
    return;
  }
  const suggestion = isKnownPath(path) ? undefined : suggestPath(path);
  const guess = suggestion ? ` (did you mean ${suggestion}?)` : "";
  process.stderr.write(`${name} is not set in ${file}: nothing to remove${guess}\n`);
}

/** `ion config init`: the first-run flow; without a terminal, what to run instead. */
export async function initConfig(rawArgs: string[]): Promise<void> {
  parseStrict("config init", rawArgs, initArgs, 0);
  const { canPrompt, firstRun, initInstructions } = await import("../ui/first-run.ts");
  if (!canPrompt()) {
    const { message, hint } = initInstructions(process.env);
    throw new IonError("config", message, { hint });
  }
  const { clackPrompter } = await import("../ui/prompter.ts");
  await firstRun({ prompter: await clackPrompter() });
}

function projectKeyError(): IonError {
  return new IonError("usage", "API keys are kept only in keys.json, never in a project file", {
    hint: "drop --project",
  });
}

/** Says on stderr when a higher layer hides the value just written to the user file. */
async function noteOverride(name: string, path: string[], env: Env, project: string): Promise<void> {
  const variable = name === "model" ? "ION_MODEL" : name === "provider" ? "ION_PROVIDER" : undefined;
  if (variable && (env[variable] ?? "") !== "")
    process.stderr.write(`note: ${variable} is set in the environment and overrides ${name}\n`);
  let projectValue: unknown;
  try {
    projectValue = getAt(await readConfigObject(project), path);
  } catch (err) {
    if (!(err instanceof IonError)) throw err;
    process.stderr.write(`ion: warning: ${err.message}\n`);
    return;
  }
  if (projectValue !== undefined)
    process.stderr.write(`note: ${project} sets ${name} too, which wins in that project\n`);
}

/** The provider a key path belongs to; a provider ion does not know is refused with a suggestion. */
function keyProvider(ref: KeyRef, loaded: LoadedConfig, allowStored: boolean): string {
  const { config } = loaded;
  if (ref.kind === "top") {
    const id = selectedProviderId(config);
    if (id === undefined)
      throw new IonError("config", "api_key belongs to the selected provider, and none is selected", {
        hint: "name the provider: `ion config set providers.<id>.api_key -`",
      });
    return id;
  }
  const known = knownProviderIds(config);
  if (known.includes(ref.providerId) || (allowStored && Object.hasOwn(loaded.keys, ref.providerId)))
    return ref.providerId;
  const guess = new Fuse(known, { threshold: 0.4 }).search(ref.providerId)[0]?.item;
  throw new IonError("config", `unknown provider "${ref.providerId}"`, {
    hint: guess
      ? `did you mean ${guess}? (known: ${known.join(", ")})`
      : `known: ${known.join(", ")}; define others under "providers" with an "api_base"`,
  });
}

/** Removes plain-text copies of the provider's key from the user's config.json; true if any went. */
async function dropPlainKeys(file: string, loaded: LoadedConfig, id: string): Promise<boolean> {
  let removed = (await unsetConfigValue(file, ["providers", id, "api_key"])).changed;
  if (selectedProviderId(loaded.config) === id && loaded.sources.api_key === "user")
    removed = (await unsetConfigValue(file, ["api_key"])).changed || removed;
  return removed;
}

/** A project file's key comes before keys.json: say so, naming the file but never the key. */
function noteProjectKey(loaded: LoadedConfig, id: string): void {
  const project =
    loaded.sources[`providers.${id}.api_key`] === "project" ||
    (selectedProviderId(loaded.config) === id && loaded.sources.api_key === "project");
  if (project)
    process.stderr.write(
      `note: ${loaded.files.project} sets an api_key for ${id}, which comes before keys.json\n`,
    );
}

async function setApiKey(ref: KeyRef, name: string, value: string | undefined, env: Env): Promise<void> {
  const loaded = await loadSettings(env);
  const id = keyProvider(ref, loaded, false);
  const key = await readKey(id, value);
  checkKey(id, key, `pass it, or \`-\` to read it from a prompt or stdin: \`ion config set ${name} -\``);
  const dir = configDir(env);
  await writeKey(dir, id, key);
  process.stdout.write(`${name} = ${maskKey(key)}  (${loaded.files.keys})\n`);
  if (await dropPlainKeys(loaded.files.user, loaded, id))
    process.stderr.write(`note: removed the plain-text key for ${id} from ${loaded.files.user}\n`);
  noteProjectKey(loaded, id);
}

async function unsetApiKey(ref: KeyRef, name: string, env: Env): Promise<void> {
  const loaded = await loadSettings(env);
  const id = keyProvider(ref, loaded, true);
  const fromKeys = await removeKey(configDir(env), id);
  const fromConfig = await dropPlainKeys(loaded.files.user, loaded, id);
  if (fromKeys) process.stdout.write(`removed the key for ${id} from ${loaded.files.keys}\n`);
  if (fromConfig) process.stdout.write(`removed the key for ${id} from ${loaded.files.user}\n`);
  if (!fromKeys && !fromConfig) process.stderr.write(`${name} is not set: nothing to remove\n`);
  noteProjectKey(loaded, id);
  const envName = builtinProvider(id)?.keyEnv.find((n) => (env[n] ?? "").trim() !== "");
  if (envName) process.stderr.write(`note: $${envName} still supplies a key for ${id}\n`);
}
