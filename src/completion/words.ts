/**
 * `ion completion --words KIND [PREFIX]`: the values a completion script offers for a flag or an
 * argument, one per line as `value<TAB>description`, from local files only (never the network): the
 * model catalogue's cache, the session files' first records, the skill and agent files, the config.
 * A Tab press waits for it, so each kind reads as little as it can: the modules it needs are
 * imported for that kind alone.
 */
import { IonError } from "../errors.ts";
import { WORD_KINDS, type WordKind } from "./tree.ts";

export interface Word {
  value: string;
  description: string;
}

/** Sessions offered at most: the newest; a longer prefix reaches older ones. */
export const MAX_SESSIONS = 100;

/** Where to look: the environment (config, data and cache dirs) and the project directory. */
export interface WordsContext {
  env: Record<string, string | undefined>;
  cwd: string;
}

type Lister = (prefix: string, context: WordsContext) => Promise<Word[]>;

const LISTERS: Record<WordKind, Lister> = {
  models: async (prefix, { env }) => (await import("./words-models.ts")).modelWords(prefix, env),
  sessions: async (prefix, { env }) => (await import("./words-sessions.ts")).sessionWords(prefix, env),
  skills: async (_prefix, { env, cwd }) => {
    const { loadSkills } = await import("../skills/load.ts");
    const { items } = loadSkills({ cwd, env });
    return items.map((s) => ({ value: s.name, description: s.description }));
  },
  agents: async (_prefix, { env, cwd }) => {
    const { loadCustomAgents } = await import("../subagents/custom-agents.ts");
    const { BUILTIN_TYPES } = await import("../subagents/builtin-types.ts");
    const builtin = Object.entries(BUILTIN_TYPES).map(([name, type]) => ({
      value: name,
      description: type.role,
    }));
    const custom = loadCustomAgents({ cwd, env }).items.map((a) => ({
      value: a.name,
      description: a.description,
    }));
    return [...builtin, ...custom.filter((a) => !(a.value in BUILTIN_TYPES))];
  },
  "mcp-servers": async (_prefix, { env, cwd }) => {
    const { collectMcpServers } = await import("../mcp/sources.ts");
    // Names only: an untrusted project's servers are named (its files are not parsed for use).
    const { servers, skipped } = await collectMcpServers({ cwd, env, trusted: false });
    return [
      ...servers.map((s) => ({ value: s.definition.name, description: `user · ${s.file}` })),
      ...skipped.map((s) => ({ value: s.name, description: `project · ${s.file}` })),
    ];
  },
  "config-keys": async (prefix) => (await import("./words-config.ts")).configKeyWords(prefix),
};

export function isWordKind(kind: string): kind is WordKind {
  return (WORD_KINDS as readonly string[]).includes(kind);
}

/** The words of `kind` that start with `prefix`, descriptions made one safe line. */
export async function completionWords(
  kind: string,
  prefix: string,
  context: WordsContext = { env: process.env, cwd: process.cwd() },
): Promise<Word[]> {
  if (!isWordKind(kind))
    throw new IonError("usage", `unknown completion kind "${kind}"; one of ${WORD_KINDS.join(", ")}`);
  const { safeForTerminal } = await import("../util/terminal-text.ts");
  const words = await LISTERS[kind](prefix, context);
  return words
    .filter((w) => w.value.startsWith(prefix) && !/[\s\p{Cc}]/u.test(w.value))
    .map((w) => ({
      value: w.value,
      description: safeForTerminal(w.description).replace(/\s+/g, " ").trim(),
    }));
}

/** The lines the scripts read: `value<TAB>description`, or the value alone. */
export function wordLines(words: readonly Word[]): string {
  return words
    .map((w) => (w.description === "" ? `${w.value}\n` : `${w.value}\t${w.description}\n`))
    .join("");
}
