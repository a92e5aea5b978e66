import { type ArgsDef, type CommandDef, defineCommand, parseArgs } from "citty";
import type { Diagnostic } from "../context/diagnostics.ts";
import { IonError } from "../errors.ts";

interface FlagInfo {
  name: string;
  takesValue: boolean;
  boolean: boolean;
}

function flagTable(args: ArgsDef): Map<string, FlagInfo> {
  const table = new Map<string, FlagInfo>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const info = {
      name,
      takesValue: def.type === "string" || def.type === "enum",
      boolean: def.type === "boolean",
    };
    table.set(name, info);
    // citty parses a flag's camelCase spelling too; Claude Code spells some that way (--allowedTools).
    const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (camel !== name) table.set(camel, info);
    const aliases = "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
    for (const alias of aliases) table.set(alias, info);
  }
  table.set("help", { name: "help", takesValue: false, boolean: true });
  table.set("h", { name: "help", takesValue: false, boolean: true });
  return table;
}

/**
 * citty accepts any flag; ion refuses unknown ones (exit 64) and collects repeatable ones, which citty
 * would collapse to the last value. Returns the values of each repeatable flag in order.
 */
export function checkFlags(
  command: string,
  rawArgs: string[],
  args: ArgsDef,
  repeatable: string[] = [],
): Record<string, string[]> {
  return walkFlags(command, rawArgs, args, repeatable).collected;
}

/** `-1`, `-0.5`, `-.5`: a value (`ion config set mcp.startup_timeout_ms -1`), never one of ion's flags. */
const NEGATIVE_NUMBER = /^-(\d+\.?\d*|\.\d+)$/;

function walkFlags(
  command: string,
  rawArgs: string[],
  args: ArgsDef,
  repeatable: string[],
): { collected: Record<string, string[]>; positionals: number[]; split: number } {
  const table = flagTable(args);
  const positionals: number[] = [];
  let split = -1;
  const collected: Record<string, string[]> = Object.fromEntries(repeatable.map((r) => [r, []]));
  const noValue = (flag: string, arg: string) =>
    new IonError("usage", `${flag} takes no value, got "${arg}"`, {
      hint: `give ${flag} alone to turn it on${flag.startsWith("--") ? `, or --no-${flag.slice(2)} to turn it off` : ""}`,
    });
  const unknown = (flag: string) =>
    new IonError("usage", `unknown option ${flag} for "ion ${command}"`, {
      hint: `see \`ion ${command} --help\``,
    });

  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      split = i;
      for (let rest = i + 1; rest < rawArgs.length; rest++) positionals.push(rest);
      break;
    }
    if (!arg.startsWith("-") || arg === "-" || NEGATIVE_NUMBER.test(arg)) {
      positionals.push(i);
      continue;
    }
    const long = arg.startsWith("--");
    const [rawName, inline] = long
      ? (arg.slice(2).split(/=(.*)/s) as [string, string?])
      : [arg.slice(1), undefined];
    const names = long ? [rawName] : [...rawName];
    for (const [position, name] of names.entries()) {
      let info = table.get(name);
      if (!info && long && name.startsWith("no-")) {
        const negated = table.get(name.slice(3));
        if (negated?.boolean) info = negated;
      }
      // `-q=x`: a short flag never takes `=value`.
      if (!info && !long && name === "=" && position > 0) throw noValue(`-${names[position - 1]}`, arg);
      if (!info) throw unknown(long ? `--${name}` : `-${name}`);
      if (!info.takesValue) {
        // citty would take any value as "on" (`--trust-project=0` trusted): only true and false mean anything.
        if (long && inline !== undefined && inline !== "true" && inline !== "false")
          throw noValue(`--${name}`, arg);
        continue;
      }
      const isLast = position === names.length - 1;
      let value = inline;
      if (value === undefined) {
        if (!isLast) value = rawName.slice(position + 1);
        else value = rawArgs[++i];
      }
      if (value === undefined)
        throw new IonError("usage", `option ${arg} needs a value`, { hint: `see \`ion ${command} --help\`` });
      collected[info.name]?.push(value);
      break;
    }
  }
  return { collected, positionals, split };
}

/**
 * The arguments as citty should see them: citty reads `-1` as a flag named "1", so when a positional
 * argument is a negative number, the positionals go after `--`, in order, where citty takes them as
 * they are. Anything else is returned unchanged.
 */
export function argsForCitty(rawArgs: string[], args: ArgsDef): string[] {
  const { positionals, split } = walkFlags("", rawArgs, args, []);
  const beforeSplit = (i: number) => split < 0 || i < split;
  if (!positionals.some((i) => beforeSplit(i) && NEGATIVE_NUMBER.test(rawArgs[i]!))) return rawArgs;
  const isPositional = new Set(positionals);
  const flags = rawArgs.filter((_, i) => !isPositional.has(i) && i !== split);
  return [...flags, "--", ...positionals.map((i) => rawArgs[i]!)];
}

export function parsePositiveInt(flag: string, value: string): number {
  // Decimal digits only: Number() would also take "0x10", "1e3" and "" (as 0).
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new IonError("usage", `${flag} must be a positive whole number, got "${value}"`);
  return n;
}

export function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new IonError("usage", `${flag} must be one of ${choices.join(", ")}, got "${value}"`);
}

/** Strict flags, then citty's parse; more positional arguments than `max` is a usage error. */
export function parseStrict<A extends ArgsDef>(command: string, rawArgs: string[], args: A, max: number) {
  checkFlags(command, rawArgs, args);
  const parsed = parseArgs(argsForCitty(rawArgs, args), args);
  const extra = parsed._.slice(max);
  if (extra.length > 0)
    throw new IonError("usage", `unexpected argument "${extra[0]}" for "ion ${command}"`, {
      hint: `see \`ion ${command} --help\``,
    });
  return parsed;
}

/**
 * A subcommand whose work lives in another module, imported only when it runs: `--help` and the
 * other subcommands never pay for it.
 */
export function lazyCommand<A extends ArgsDef>(
  name: string,
  description: string,
  args: A,
  load: () => Promise<(rawArgs: string[]) => Promise<void>>,
): CommandDef<A> {
  return defineCommand({
    meta: { name, description },
    args,
    async run({ rawArgs }) {
      await (await load())(rawArgs);
    },
  });
}

/**
 * The `setup` guard of a command group (`ion config`, `ion providers`, `ion sessions`): citty would
 * report an unknown subcommand as an internal error (exit 1) and silently drop flags given before the
 * subcommand's name; both are usage errors (64). Flags alone go to the default subcommand.
 */
export function guardSubcommand(
  group: string,
  rawArgs: string[],
  subcommands: Record<string, unknown>,
): void {
  const at = rawArgs.findIndex((arg) => !arg.startsWith("-"));
  const name = rawArgs[at];
  if (name === undefined) return;
  const hint = `subcommands: ${Object.keys(subcommands).join(", ")}; see \`ion ${group} --help\``;
  if (!Object.hasOwn(subcommands, name)) {
    throw new IonError("usage", `unknown subcommand "${name}" for "ion ${group}"`, { hint });
  }
  if (at > 0) {
    throw new IonError("usage", `unexpected ${rawArgs[0]} before "${name}" for "ion ${group}"`, {
      hint: `options go after the subcommand: \`ion ${group} ${name} ${rawArgs.slice(0, at).join(" ")}\``,
    });
  }
}

/** A path under the home directory written from `~` (`~/notes/a.md`), for a table; any other path as it is. */
export function tildePath(path: string, home = process.env.HOME): string {
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Text on one line (runs of white space made one space), cut to `max` characters with `…`. */
export function clipLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The output of a command that prints files from repositories (`ion skills`, `ion agents`): fd
 * writers, the terminal's size, and `safe`, which makes their text safe for a terminal. Loaded when
 * the command runs, not when ion starts.
 */
export async function fileListingOutput() {
  const { fdWriter, terminal } = await import("../util/fd-writer.ts");
  const { safeForTerminal } = await import("../util/terminal-text.ts");
  return { stdout: fdWriter("stdout"), stderr: fdWriter("stderr"), terminal, safe: safeForTerminal };
}

/** Files that could not be used, one line each after the listing (`ion: warning: skipped <path>: <why>`); never a failure. */
export function reportDiagnostics(
  stderr: { write(text: string): void },
  diagnostics: readonly Diagnostic[],
  safe: (text: string) => string,
): void {
  for (const d of diagnostics) {
    const what = d.severity === "error" ? "warning: skipped" : "warning:";
    stderr.write(`ion: ${what} ${safe(`${d.path}: ${d.message}`)}\n`);
  }
}

/**
 * The flags of a command listing a project's files of one kind (`ion skills`, `ion agents`): `list`
 * takes --json, `show` a name; both --cwd.
 */
export function projectFileArgs(plural: string, singular: string) {
  const cwd = {
    cwd: {
      type: "string",
      valueHint: "dir",
      description: `Look for project ${plural} in this directory instead of the current one`,
    },
  } as const satisfies ArgsDef;
  return {
    cwdArgs: cwd,
    listArgs: {
      json: { type: "boolean", description: "Print a JSON array instead of a table" },
      ...cwd,
    } as const satisfies ArgsDef,
    showArgs: {
      name: { type: "positional", required: false, description: `The ${singular}'s name (required)` },
      ...cwd,
    } as const satisfies ArgsDef,
  };
}
