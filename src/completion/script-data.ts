/**
 * The command tree as lookup functions of a completion script: per command path (`""` for ion
 * itself, `"sessions show"`), its subcommands, flags, what each flag's value is and what its
 * positional arguments are. bash and zsh share the `case` form; fish has its own (fish.ts).
 */
import { allCommands, type CommandNode, type ValueKind } from "./tree.ts";

/** A value kind as the scripts spell it: `none`, `file`, `dir`, `choice:a b c`, `words:KIND`. */
export function kindText(value: ValueKind): string {
  switch (value.kind) {
    case "choice":
      return `choice:${value.values.join(" ")}`;
    case "dynamic":
      return `words:${value.name}`;
    default:
      return value.kind;
  }
}

/** `'…'` for sh, bash, zsh and fish alike (fish reads `'\''` the same way). */
export function quote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "'\\''")}'`;
}

/** sh-family single quotes: no backslash escapes inside. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

export function pathKey(node: CommandNode): string {
  return node.path.join(" ");
}

/** Flag spelling → value kind, for every flag that takes a value, keyed `path|flag`. */
export function valueFlags(root: CommandNode): [string, string][] {
  const rows: [string, string][] = [];
  for (const node of allCommands(root))
    for (const flag of node.flags)
      if (flag.value)
        for (const spelling of flag.spellings)
          rows.push([`${pathKey(node)}|${spelling}`, kindText(flag.value)]);
  return rows;
}

/** `case` arms setting REPLY, one per distinct key; `fallback` for no match. */
function shCase(subject: string, arms: [string, string][], indent = "  "): string {
  const lines = [`${indent}case ${subject} in`];
  for (const [key, value] of arms) lines.push(`${indent}  ${shQuote(key)}) REPLY=${shQuote(value)} ;;`);
  lines.push(`${indent}  *) REPLY='' ;;`, `${indent}esac`);
  return lines.join("\n");
}

/** The lookup functions bash and zsh share: each sets REPLY to a word list or a kind. */
export function shLookups(root: CommandNode): string {
  const nodes = allCommands(root);
  const subs = nodes
    .filter((n) => n.subcommands.length > 0)
    .map((n): [string, string] => [pathKey(n), n.subcommands.map((s) => s.path.at(-1)).join(" ")]);
  const flags = nodes.map((n): [string, string] => [
    pathKey(n),
    n.flags.flatMap((f) => f.spellings).join(" "),
  ]);
  const positionals = nodes
    .filter((n) => n.positional.kind !== "none")
    .map((n): [string, string] => [pathKey(n), kindText(n.positional)]);
  return [
    "# The subcommands of a command path ($1: '' for ion itself, 'sessions show').",
    `__ion_subcommands() {\n${shCase('"$1"', subs)}\n}`,
    "# Every flag spelling of a command path.",
    `__ion_flags() {\n${shCase('"$1"', flags)}\n}`,
    "# What the value of flag $2 of path $1 is: empty for a switch (or an unknown flag).",
    `__ion_flag_value() {\n${shCase('"$1|$2"', valueFlags(root))}\n}`,
    "# What the positional arguments of a path are.",
    `__ion_positional() {\n${shCase('"$1"', positionals)}\n}`,
  ].join("\n");
}
