import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import type { Config, Keys, Layer } from "../config/schema.ts";
import { SessionInUseError, SessionStore } from "../history/store.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";
import { openSessionSandbox, unavailableNotice } from "../sandbox/session-sandbox.ts";
import { commandEnvironment } from "../tools/command-env.ts";
import { checkBudgetPriced } from "./budget.ts";
import { resolveFallback } from "./fallback.ts";
import {
  checkChoice,
  chooseSession,
  expireSessions,
  type OpenedSession,
  openSession,
} from "./session-file.ts";
import { SessionMcp } from "./session-mcp.ts";
import type { SessionOptions } from "./session-options.ts";
import { type ModelTarget, resolveTarget, sessionParts } from "./session-setup.ts";

/** What an agent session is opened from: configuration, its file (if any), model, tools and prompt. */
export interface SessionBasis {
  loaded: { config: Config; sources: Record<string, Layer>; keys: Keys };
  store: SessionStore | undefined;
  opened: OpenedSession | undefined;
  target: ModelTarget;
  /** `--fallback-model`, resolved before any request. */
  fallback: ModelTarget | undefined;
  parts: Awaited<ReturnType<typeof sessionParts>>;
  /** The MCP servers, starting in parallel with the rest of the set-up; undefined when none is configured. */
  mcp: SessionMcp | undefined;
  /** Where `bash` commands run. */
  sandbox: CommandSandbox;
  /** What commands inherit (bash, hooks, MCP stdio servers): no provider key, no secret-like name. */
  commandEnv: Record<string, string>;
}

/**
 * Loads config, picks and opens the session file, resolves the model. Throws IonError for what the user
 * must fix; a file opened before the failure is closed again.
 */
export async function openBasis(options: SessionOptions): Promise<SessionBasis> {
  checkChoice(options.choice);
  const { cwd, env, notice } = options;
  let loaded = await loadConfig({ cwd, env, trustedProject: options.projectTrust?.trusted });
  for (const warning of loaded.warnings) notice(`warning: ${warning}`);
  const trust = options.projectTrust;
  let commandEnv = commandEnvironment({ env, config: loaded.config, keys: loaded.keys });
  const mcp = SessionMcp.start({
    cwd,
    env,
    serverEnv: commandEnv,
    config: loaded.config,
    trust,
    notice,
    log: options.log,
    programServers: options.programMcpServers,
  });
  // The sandbox probe (a few ms of bwrap) runs while the session file and the model are resolved.
  const sandboxFor = (config: Config) =>
    openSessionSandbox({ cwd, env, config, mode: options.sandboxMode, addDirs: options.addDirs });
  let sandboxing = sandboxFor(loaded.config);

  const store = options.choice.noSession ? undefined : SessionStore.forDataDir(dataDir(env));
  let opened: OpenedSession | undefined;
  try {
    if (store) await expireSessions(store, dataDir(env), loaded.config.history?.retention_days ?? 30, notice);
    opened = store && (await openChosen(store, options));
    // A resumed session keeps the model it was held with unless -m says otherwise.
    const spec =
      options.model ??
      // A session saved by a run that failed before it had a model records none ("").
      (opened?.lastModel.provider ? `${opened.lastModel.provider}/${opened.lastModel.model}` : undefined);
    if (spec === undefined && !loaded.config.model && options.ensureModel) {
      await options.ensureModel();
      loaded = await loadConfig({ cwd, env, trustedProject: options.projectTrust?.trusted });
      sandboxing = sandboxFor(loaded.config);
      commandEnv = commandEnvironment({ env, config: loaded.config, keys: loaded.keys });
    }
    const target = await resolveTarget(loaded, spec, env, options.model !== undefined);
    for (const warning of target.facts.warnings ?? []) notice(`warning: ${warning}`);
    const parts = await sessionParts(options, loaded.config);
    const fallback =
      options.fallbackModel === undefined
        ? undefined
        : await resolveFallback(loaded, options.fallbackModel, env, target);
    if (options.maxBudgetUsd !== undefined)
      for (const t of fallback ? [target, fallback] : [target])
        checkBudgetPriced(t.facts.price, `${t.provider.id}/${t.model}`);
    const sandbox = await sandboxing;
    const unavailable = unavailableNotice(sandbox);
    if (unavailable && !options.noTools) notice(unavailable);
    return { loaded, store, opened, target, fallback, parts, mcp, sandbox, commandEnv };
  } catch (err) {
    await opened?.writer.close();
    await mcp?.close();
    throw err;
  }
}

/** The session file to continue, opened for appending; undefined for a new session. */
async function openChosen(store: SessionStore, options: SessionOptions): Promise<OpenedSession | undefined> {
  const { choice, cwd, notice } = options;
  try {
    const id = await chooseSession(store, choice, cwd, notice, options.skipBusyLatest);
    return id ? await openSession(store, id, notice, options.log) : undefined;
  } catch (err) {
    // A chat opening the latest session that another ion still holds starts a new one instead.
    if (!(options.skipBusyLatest && choice.resume === undefined && err instanceof SessionInUseError))
      throw err;
    notice(`${err.message}; starting a new session`);
    return undefined;
  }
}
