import type { SessionMemory } from "../memory/extension.ts";
import { messageOf } from "../util/error-text.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/**
 * `/memory [search QUERY | forget ID | on | off]`: what memory holds, searched as `ion memory search`
 * does; forgetting as `ion memory forget` (kept for `--as-of`); on and off for this chat only. Bare
 * `/memory` says whether it is on and how many memories there are.
 */
const SUBCOMMANDS = ["search", "forget", "on", "off"];
/** Memories a `/memory search` shows. */
const SHOWN = 5;

export const memoryCommand: SlashCommand<ChatContext> = {
  name: "memory",
  args: "[search QUERY | forget ID [--hard] | on | off]",
  summary: "search or forget what ion remembers; turn memory on or off for this chat",
  complete: (partial) => SUBCOMMANDS.filter((name) => name.startsWith(partial)),
  // Piped text is often a document: it must not make ion forget what the user told it.
  refuseWhenPiped: (args) =>
    /^forget\b/i.test(args) ? "forgetting changes what ion remembers: type it on a terminal" : undefined,
  async run(args, context) {
    const { style } = context;
    const memory = await sessionMemory(context);
    if (!memory) {
      context.print(
        style.dim("memory is off: this chat is not saved (--no-session), so it neither learns nor recalls"),
      );
      return;
    }
    const [word = "", ...rest] = args.split(/\s+/);
    const argument = rest.join(" ").trim();
    try {
      switch (word.toLowerCase()) {
        case "":
          return await status(memory, context);
        case "on":
        case "off":
          return toggle(memory, word.toLowerCase() === "on", context);
        case "search":
          return await search(memory, argument, context);
        case "forget":
          return await forget(memory, argument, context);
        default:
          context.print(style.red(`ion: unknown /memory subcommand "${safeForTerminal(word)}"`));
          context.print(style.dim(`  hint: /memory ${memoryCommand.args}`));
      }
    } catch (err) {
      context.print(style.red(`ion: ${safeForTerminal(messageOf(err))}`));
    }
  },
};

async function sessionMemory(context: ChatContext): Promise<SessionMemory | undefined> {
  const extension = context.session.extension("memory");
  if (!extension) return undefined;
  const { SessionMemory } = await import("../memory/extension.ts");
  return extension instanceof SessionMemory ? extension : undefined;
}

async function status(memory: SessionMemory, context: ChatContext): Promise<void> {
  const stats = (await memory.openStore()).stats();
  const state = memory.enabled
    ? "on"
    : memory.configuredOff
      ? "off (memory.enabled: false in the config)"
      : "off for this chat (/memory on turns it back on)";
  const count = `${stats.valid} ${stats.valid === 1 ? "memory" : "memories"}`;
  context.print(
    `memory ${state} · ${count} · /memory search QUERY, /memory forget ID [--hard], /memory on|off`,
  );
}

function toggle(memory: SessionMemory, on: boolean, context: ChatContext): void {
  if (on && memory.configuredOff) {
    context.print(context.style.dim("memory stays off: memory.enabled is false in the config"));
    return;
  }
  memory.enabled = on;
  context.print(
    context.style.dim(
      on
        ? "memory on for this chat: it learns each turn and recalls what earlier sessions hold"
        : "memory off for this chat: nothing is learnt or recalled until /memory on",
    ),
  );
}

async function search(memory: SessionMemory, query: string, context: ChatContext): Promise<void> {
  const { style, session } = context;
  if (query === "") {
    context.print(style.red("ion: /memory search needs something to look for, e.g. /memory search tabs"));
    return;
  }
  const { findMemories, hitLines } = await import("../commands/memory-search.ts");
  const { config, keys, env } = session.catalogInputs();
  const hits = await findMemories(await memory.openStore(), query, {
    limit: SHOWN,
    config,
    keys,
    env,
    warn: (text) => context.print(style.dim(`ion: warning: ${safeForTerminal(text)}`)),
  });
  if (hits.length === 0) {
    context.print(style.dim(`no memories match ${JSON.stringify(query)}`));
    return;
  }
  for (const line of hitLines(hits, style, 72)) context.print(line);
}

/** `/memory forget ID [--hard]`, as `ion memory forget` takes them. */
async function forget(memory: SessionMemory, argument: string, context: ChatContext): Promise<void> {
  const words = argument.split(/\s+/).filter((word) => word !== "");
  const hard = words.includes("--hard");
  const ids = words.filter((word) => word !== "--hard");
  if (ids.length !== 1) {
    context.print(
      context.style.red(
        "ion: /memory forget needs one memory id, and --hard to delete it (/memory search shows ids)",
      ),
    );
    return;
  }
  const { forgetInStore } = await import("../commands/memory-list.ts");
  context.print(forgetInStore(await memory.openStore(), ids[0]!, hard));
}
