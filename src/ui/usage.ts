/**
 * `--help` pages. citty's own renderer prints a long alias with one dash (`-system-prompt`, which ion
 * then refuses), a boolean that defaults to true as `--tools (Default: true)` with no description, and
 * right-aligns the flags; here every flag is printed as ion accepts it, with its description.
 * Flags that default to true are shown by their `--no-` form only: that is the one a user types.
 */
import type { ArgDef, ArgsDef, CommandDef } from "citty";

const ESC = "\x1b[";
const cyan = (text: string) => `${ESC}36m${text}${ESC}39m`;
const gray = (text: string) => `${ESC}90m${text}${ESC}39m`;
const heading = (text: string) => `${ESC}4m${ESC}1m${text}${ESC}22m${ESC}24m`;

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolve<T>(value: Resolvable<T>): Promise<T> {
  return typeof value === "function" ? (value as () => T | Promise<T>)() : value;
}

/** `-m`, `--model`: one dash for a one-letter name, two for a word (citty's parser takes both so). */
function flagSpelling(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

function aliasesOf(def: ArgDef): string[] {
  return "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
}

/** Each row: what to type, and what it does. */
function optionRows(args: ArgsDef): [string, string][] {
  const rows: [string, string][] = [];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    // Short aliases, the name, then long aliases: `-y, --yes, --dangerously-skip-permissions`.
    const aliases = aliasesOf(def);
    const spellings = [
      ...aliases.filter((a) => a.length === 1),
      name,
      ...aliases.filter((a) => a.length > 1),
    ];
    const takesValue = def.type === "string" || def.type === "enum";
    const value = takesValue ? ` ${(def.valueHint ?? name.replace(/-/g, "_")).toUpperCase()}` : "";
    if (def.type === "boolean" && def.default === true) {
      rows.push([`--no-${name}`, def.negativeDescription ?? def.description ?? ""]);
      continue;
    }
    const fallback = def.default === undefined || def.default === false ? "" : ` (default: ${def.default})`;
    rows.push([`${spellings.map(flagSpelling).join(", ")}${value}`, `${def.description ?? ""}${fallback}`]);
  }
  return rows;
}

function columns(rows: [string, string][], style: (text: string) => string): string {
  const width = Math.max(...rows.map(([left]) => Bun.stringWidth(left)));
  return rows
    .map(([left, right]) =>
      `  ${style(left)}${" ".repeat(width - Bun.stringWidth(left))}  ${right}`.trimEnd(),
    )
    .join("\n");
}

/** The `--help` page of `command`; `parent` names the command it belongs to (`ion`, `ion sessions`). */
export async function renderUsage(command: CommandDef, parent?: CommandDef): Promise<string> {
  const meta = (await resolve(command.meta ?? {})) ?? {};
  const parentMeta = (await resolve(parent?.meta ?? {})) ?? {};
  const args = (await resolve(command.args ?? {})) as ArgsDef;
  const name = [parentMeta.name, meta.name].filter(Boolean).join(" ");
  const version = meta.version ?? parentMeta.version;

  const positionals = Object.entries(args).filter(([, def]) => def.type === "positional");
  const options = optionRows(args);
  const commands: [string, string][] = [];
  if (command.subCommands) {
    const subs = await resolve(command.subCommands);
    for (const [sub, def] of Object.entries(subs)) {
      const subMeta = await resolve((await resolve(def)).meta ?? {});
      if (!subMeta?.hidden) commands.push([sub, subMeta?.description ?? ""]);
    }
  }

  const usageLine = [name];
  if (options.length > 0) usageLine.push("[OPTIONS]");
  for (const [argName, def] of positionals) {
    const upper = argName.toUpperCase();
    usageLine.push(def.required === false ? `[${upper}]` : `<${upper}>`);
  }
  if (commands.length > 0) usageLine.push(commands.map(([sub]) => sub).join("|"));

  const out = [gray(`${meta.description ?? ""} (${name}${version ? ` v${version}` : ""})`), ""];
  out.push(`${heading("USAGE")} ${cyan(usageLine.join(" "))}`, "");
  if (positionals.length > 0) {
    const rows = positionals.map(([argName, def]): [string, string] => [
      argName.toUpperCase(),
      def.description ?? "",
    ]);
    out.push(heading("ARGUMENTS"), "", columns(rows, cyan), "");
  }
  if (options.length > 0) out.push(heading("OPTIONS"), "", columns(options, cyan), "");
  if (commands.length > 0) {
    out.push(heading("COMMANDS"), "", columns(commands, cyan), "");
    out.push(`Use ${cyan(`${name} <command> --help`)} for more information about a command.`);
  }
  return out.join("\n").trimEnd();
}
