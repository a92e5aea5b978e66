/**
 * The command tree as completion sees it, read from the same citty definitions `--help` renders:
 * each command's subcommands, flags (spelled as ion accepts them) and what a flag's value or a
 * positional argument completes to. Loading it imports every command module (their top levels hold
 * flag definitions only); it runs only when a user asks for a completion script.
 */
import type { ArgDef, ArgsDef, CommandDef } from "citty";

/** What a word completes to. Dynamic kinds are answered by `ion completion --words KIND`. */
export type ValueKind =
  | { kind: "none" }
  | { kind: "file" }
  | { kind: "dir" }
  | { kind: "choice"; values: string[] }
  | { kind: "dynamic"; name: WordKind };

/** The kinds the hidden helper answers (src/completion/words.ts). */
export const WORD_KINDS = ["models", "sessions", "skills", "agents", "mcp-servers", "config-keys"] as const;
export type WordKind = (typeof WORD_KINDS)[number];

export interface FlagNode {
  /** Every spelling, as typed: `-m`, `--model`. */
  spellings: string[];
  description: string;
  /** undefined: a switch that takes no value. */
  value: ValueKind | undefined;
}

export interface CommandNode {
  /** Words after `ion` that lead here: `[]` for ion itself, `["sessions", "show"]`. */
  path: string[];
  description: string;
  flags: FlagNode[];
  subcommands: CommandNode[];
  /** What the positional arguments complete to; none when the command takes none. */
  positional: ValueKind;
}

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolve<T>(value: Resolvable<T>): Promise<T> {
  return typeof value === "function" ? (value as () => T | Promise<T>)() : value;
}

/** `valueHint`s whose values ion can list. Any other hint completes nothing (free text, a number…). */
const HINT_VALUES: Record<string, ValueKind> = {
  "provider/model": { kind: "dynamic", name: "models" },
  id: { kind: "dynamic", name: "sessions" },
  dir: { kind: "dir" },
  file: { kind: "file" },
  path: { kind: "file" },
  name: { kind: "dynamic", name: "skills" },
};

/**
 * Positional arguments that name something ion can list, by command and argument name. A positional
 * not named here completes nothing: a prompt, a query, a value.
 */
const POSITIONAL_VALUES: Record<string, ValueKind> = {
  "sessions show id": { kind: "dynamic", name: "sessions" },
  "sessions rm id": { kind: "dynamic", name: "sessions" },
  "sessions export id": { kind: "dynamic", name: "sessions" },
  "skills show name": { kind: "dynamic", name: "skills" },
  "agents show name": { kind: "dynamic", name: "agents" },
  "mcp tools server": { kind: "dynamic", name: "mcp-servers" },
  "mcp remove name": { kind: "dynamic", name: "mcp-servers" },
  "config get key": { kind: "dynamic", name: "config-keys" },
  "config set key": { kind: "dynamic", name: "config-keys" },
  "config unset key": { kind: "dynamic", name: "config-keys" },
  "index path": { kind: "dir" },
  "completion shell": { kind: "choice", values: ["bash", "zsh", "fish"] },
};

/** `off | low | medium | high` in a flag's description: the values it takes. */
const CHOICES = /[A-Za-z][\w-]*(?: \| [A-Za-z][\w-]*)+/g;

const HINT_CHOICES = /^[A-Za-z][\w-]*(?:\|[A-Za-z][\w-]*)+$/;

function choicesIn(description: string): string[] {
  return (description.match(CHOICES) ?? []).flatMap((run) => run.split(" | "));
}

function spelling(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

function flagNode(name: string, def: ArgDef): FlagNode {
  const description = oneLine(def.description ?? "");
  // A switch that is on by default is typed in its --no- form only (as `--help` shows it).
  if (def.type === "boolean" && def.default === true)
    return {
      spellings: [`--no-${name}`],
      description: oneLine(def.negativeDescription ?? def.description ?? ""),
      value: undefined,
    };
  const aliases = "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
  const spellings = [...aliases.filter((a) => a.length === 1), name, ...aliases.filter((a) => a.length > 1)];
  return { spellings: spellings.map(spelling), description, value: flagValue(def, description) };
}

function flagValue(def: ArgDef, description: string): ValueKind | undefined {
  if (def.type === "enum") return { kind: "choice", values: [...(def.options ?? [])].map(String) };
  if (def.type !== "string") return undefined;
  const hint = def.valueHint;
  // `--type episodic|semantic|procedural`, `--thinking` "off | low | medium | high".
  if (hint !== undefined && HINT_CHOICES.test(hint)) return { kind: "choice", values: hint.split("|") };
  const choices = choicesIn(description);
  if (choices.length > 0) return { kind: "choice", values: choices };
  return (
    (hint !== undefined && Object.hasOwn(HINT_VALUES, hint) ? HINT_VALUES[hint] : undefined) ?? {
      kind: "none",
    }
  );
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

const HELP: FlagNode = {
  spellings: ["-h", "--help"],
  description: "Show this command's help",
  value: undefined,
};

/** One command and everything under it. */
export async function commandNode(command: CommandDef, path: string[]): Promise<CommandNode> {
  const meta = (await resolve(command.meta ?? {})) ?? {};
  const args = ((await resolve(command.args ?? {})) ?? {}) as ArgsDef;
  const flags: FlagNode[] = [];
  let positional: ValueKind = { kind: "none" };
  for (const [name, def] of Object.entries(args)) {
    if (def.type !== "positional") flags.push(flagNode(name, def));
    else if (positional.kind === "none") {
      const key = [...path, name].join(" ");
      positional = Object.hasOwn(POSITIONAL_VALUES, key) ? POSITIONAL_VALUES[key]! : positional;
    }
  }
  flags.push(HELP);
  const subcommands: CommandNode[] = [];
  const subs = command.subCommands ? await resolve(command.subCommands) : {};
  for (const [name, sub] of Object.entries(subs ?? {})) {
    const resolved = (await resolve(sub)) as CommandDef;
    const subMeta = (await resolve(resolved.meta ?? {})) ?? {};
    if (subMeta.hidden) continue;
    subcommands.push(await commandNode(resolved, [...path, name]));
  }
  return { path, description: oneLine(meta.description ?? ""), flags, subcommands, positional };
}

/**
 * The tree under `ion`: its commands, and at its root the flags of `ion chat` (`ion -m X` is
 * `ion chat -m X`) with `--version`.
 */
export async function commandTree(commands: Record<string, () => Promise<CommandDef>>): Promise<CommandNode> {
  const subcommands: CommandNode[] = [];
  for (const [name, load] of Object.entries(commands))
    subcommands.push(await commandNode(await load(), [name]));
  const chat = subcommands.find((c) => c.path[0] === "chat");
  const version: FlagNode = {
    spellings: ["-V", "--version"],
    description: "Print ion's version",
    value: undefined,
  };
  return {
    path: [],
    description: "",
    flags: [...(chat?.flags ?? [HELP]), version],
    subcommands,
    positional: { kind: "none" },
  };
}

/** Every command in the tree, depth first, the root included. */
export function allCommands(root: CommandNode): CommandNode[] {
  return [root, ...root.subcommands.flatMap(allCommands)];
}
