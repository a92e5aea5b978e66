/**
 * The chat's slash commands: one table drives `/help`, Tab completion and "did you mean". Later
 * capabilities add rows (`/skills`, `/memory`, `/mcp`) with `add`, without touching the chat loop.
 */

export interface SlashCommand<Context> {
  /** Without the slash: `model`. */
  name: string;
  /** Other names that run it (`exit` for `quit`). */
  aliases?: string[];
  /** The argument synopsis for /help: `[id]`, `LEVEL`. */
  args?: string;
  summary: string;
  /** Candidates for the argument being typed (model ids, session ids, levels). */
  complete?: (partial: string, context: Context) => Promise<string[]> | string[];
  /**
   * Why a line of piped input (not typed on a terminal) may not run the command with these arguments —
   * it would raise what ion does without asking, or write where the line says — or undefined when it
   * may. Piped text is often a document, and a document must not grant itself permissions.
   */
  refuseWhenPiped?: (args: string, context: Context) => string | undefined;
  run: (args: string, context: Context) => Promise<void> | void;
}

/** The parsed form of a line that starts with `/`. */
export interface SlashLine {
  name: string;
  args: string;
}

export function parseSlash(line: string): SlashLine | undefined {
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim());
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: match[2]!.trim() };
}

export class SlashRegistry<Context> {
  private readonly commands: SlashCommand<Context>[] = [];

  add(...commands: SlashCommand<Context>[]): this {
    for (const command of commands) {
      if (this.find(command.name)) throw new Error(`slash command /${command.name} is defined twice`);
      this.commands.push(command);
    }
    return this;
  }

  list(): readonly SlashCommand<Context>[] {
    return this.commands;
  }

  find(name: string): SlashCommand<Context> | undefined {
    const key = name.toLowerCase();
    return this.commands.find((c) => c.name === key || c.aliases?.includes(key));
  }

  /** Up to three commands close to a mistyped name, best first (fuse.js loads only for a mistake). */
  async suggest(name: string): Promise<string[]> {
    const { default: Fuse } = await import("fuse.js");
    const fuse = new Fuse(
      this.commands.map((c) => c.name),
      { threshold: 0.5, ignoreLocation: true },
    );
    return fuse
      .search(name)
      .slice(0, 3)
      .map((r) => r.item);
  }

  /** `/help`: one line per command, aligned. */
  help(): string[] {
    const heads = this.commands.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""}`);
    const width = Math.max(...heads.map((h) => h.length));
    return this.commands.map((c, i) => `${heads[i]!.padEnd(width)}  ${c.summary}`);
  }

  /**
   * readline's completer: `[candidates, the text they replace]`. Command names while the first word
   * is typed, then whatever the command offers for its argument.
   */
  async complete(line: string, context: Context): Promise<[string[], string]> {
    if (!line.startsWith("/")) return [[], line];
    const space = line.indexOf(" ");
    if (space === -1) {
      const typed = line.slice(1).toLowerCase();
      const names = this.commands.map((c) => c.name).filter((n) => n.startsWith(typed));
      return [names.map((n) => `/${n} `), line];
    }
    const command = this.find(line.slice(1, space));
    if (!command?.complete) return [[], line];
    const partial = line.slice(space + 1).trimStart();
    const options = await command.complete(partial, context);
    return [options.filter((o) => o.startsWith(partial)), partial];
  }
}
