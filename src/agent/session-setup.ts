import type { Env } from "../config/paths.ts";
import { resolveModel, resolveProvider } from "../config/resolve.ts";
import type { Config, Keys, Layer } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import type { ResolvedProvider, ToolSpec, UserBlock, UserMessage } from "../providers/types.ts";
import type { Skill } from "../skills/types.ts";
import type { AgentTool } from "../tools/types.ts";
import { messageOf } from "../util/error-text.ts";
import { formatTokens } from "../util/numbers.ts";
import { type ModelFacts, modelFacts } from "./model-facts.ts";
import { estimateTokens } from "./tokens.ts";

/**
 * What an agent session is built from, apart from the session itself: the model it talks to, its
 * tools and skills, and the checks and error wording around a turn.
 *
 *   resolveTarget(loaded, spec, env, fromFlag) → ModelTarget     provider, model id, catalogue facts
 *   sessionParts({cwd, env, log, notice}, config)                 tools, skills, prompt builder
 *   oversized(message, {system, tools, window, label})             IonError | undefined
 */

export interface ModelTarget {
  provider: ResolvedProvider;
  model: string;
  facts: ModelFacts;
}

type Loaded = { config: Config; sources: Record<string, Layer>; keys: Keys };

export async function resolveTarget(
  loaded: Loaded,
  spec: string | undefined,
  env: Env,
  fromFlag: boolean,
): Promise<ModelTarget> {
  let resolved: { providerId: string; model: string };
  try {
    if (fromFlag && spec !== undefined && spec.trim() === "")
      throw new IonError("config", "-m needs a model as provider/model");
    resolved = resolveModel(loaded.config, spec, loaded.sources);
  } catch (err) {
    // A model named on the command line that cannot be used is a usage error (64), not a broken config.
    if (fromFlag && err instanceof IonError && err.code === "config")
      throw new IonError("usage", err.message, { ...(err.hint ? { hint: err.hint } : {}), cause: err });
    throw err;
  }
  const { providerId, model } = resolved;
  const provider = resolveProvider(loaded.config, providerId, env, loaded.keys);
  const facts = await modelFacts(loaded.config, provider, model, env, fromFlag);
  return { provider, model, facts };
}

/** The tools (built-ins plus `skill` when there are skills), the skills, and the prompt builder. */
export async function sessionParts(
  options: {
    cwd: string;
    env: Env;
    log?: ((line: string) => void) | undefined;
    notice: (line: string) => void;
  },
  config: Config,
) {
  const [{ builtinTools, knownToolNames, skillTool }, { loadSkills }, { SessionPrompt }] = await Promise.all([
    import("../tools/index.ts"),
    import("../skills/load.ts"),
    import("./session-prompt.ts"),
  ]);
  const skills = loadSkills({ cwd: options.cwd, env: options.env });
  // A broken skill file never stops a run; `ion skills` shows why (and -v says so here). A project
  // file refused by the project-file rules is always told: it may be an attack.
  for (const diagnostic of skills.diagnostics) {
    const line = `skills: ${diagnostic.severity}: ${diagnostic.path}: ${diagnostic.message}`;
    if (diagnostic.refused) options.notice(`warning: ${diagnostic.path}: ${diagnostic.message}`);
    else options.log?.(line);
  }
  const builtins: AgentTool[] = builtinTools();
  if (skills.items.some((skill: Skill) => skill.available)) builtins.push(skillTool(skills.items));
  const known = knownToolNames();
  for (const name of config.tools?.disabled ?? []) {
    // MCP tools are known only once their servers answer.
    if (!known.includes(name) && !name.startsWith("mcp__"))
      options.notice(`warning: tools.disabled names an unknown tool "${name}"`);
  }
  return { builtins, prompt: new SessionPrompt(skills.items, options.notice) };
}

export function saveError(err: unknown): IonError {
  if (err instanceof IonError) return err;
  const message = messageOf(err);
  return new IonError("io", `could not save the session: ${message}`, { cause: err });
}

/** The prompt itself: the last text block (stdin and -f files are attached before it). */
export function promptText(content: UserBlock[]): string {
  const last = content[content.length - 1];
  return last?.type === "text" ? last.text : "";
}

/**
 * A message that cannot fit the model's window even with an empty history (a 10 MB pipe, a huge
 * `-f` file): the error that refuses it before anything is sent or saved, naming its size and the window.
 */
export function oversized(
  message: UserMessage,
  request: { system: string; tools: ToolSpec[]; window: number | undefined; label: string },
): IonError | undefined {
  const { window } = request;
  if (window === undefined) return undefined;
  const tokens = estimateTokens([message], request.system, request.tools);
  if (tokens <= window) return undefined;
  const chars = message.content.reduce((sum, b) => sum + (b.type === "text" ? b.text.length : 0), 0);
  const size = chars >= 1e6 ? `${(chars / 1e6).toFixed(1)} MB` : `${Math.round(chars / 1000)} kB`;
  return new IonError(
    "usage",
    `the message is about ${formatTokens(tokens)} tokens (${size} of text); ${request.label} takes ${formatTokens(window)}`,
    { hint: "attach less (or a part of it), or pick a model with a larger context window (`ion models`)" },
  );
}
