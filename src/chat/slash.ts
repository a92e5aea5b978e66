import { resolve } from "node:path";
import { PERMISSION_MODES, type PermissionMode } from "../agent/permissions.ts";
import { knownProviderIds } from "../config/resolve.ts";
import { IonError } from "../errors.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../providers/types.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { messageOf } from "../util/error-text.ts";
import { counted, formatTokens } from "../util/numbers.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import { type SlashCommand, SlashRegistry } from "./registry.ts";
import { contextCommand, skillCommand, skillsCommand } from "./slash-context.ts";
import { copyCommand } from "./slash-copy.ts";
import { costCommand } from "./slash-cost.ts";
import { indexCommand } from "./slash-index.ts";
import { mcpCommand } from "./slash-mcp.ts";
import { memoryCommand } from "./slash-memory.ts";
import { planCommand } from "./slash-plan.ts";
import { sandboxCommand } from "./slash-sandbox.ts";
import { trustCommand } from "./slash-trust.ts";

/**
 * The built-in slash commands. Each is a row of the registry: help, completion and "did you mean"
 * come from the same table.
 */

type Command = SlashCommand<ChatContext>;

async function chooseModel(context: ChatContext, provider?: string): Promise<string | undefined> {
  const { searchModels } = await import("../catalog/catalog.ts");
  const { favoriteIds, favoritesFirst } = await import("../catalog/favorites.ts");
  const models = (await context.models()).filter((m) => provider === undefined || m.provider === provider);
  if (models.length === 0) {
    context.print(
      `no models listed${provider ? ` for ${provider}` : ""}; type one: /model provider/model (\`ion models\` lists them)`,
    );
    return undefined;
  }
  const current = `${context.session.provider.id}/${context.session.model}`;
  const { favorites } = context.session.configuration;
  const starred = favoriteIds(models, favorites);
  const ordered = favoritesFirst(models, favorites);
  // Favourites first until something is typed; then best match first, so a typed exact id is not
  // pushed down by a favourite that merely resembles it.
  return context.pick(
    "Model",
    (query) =>
      (query.trim() === "" ? ordered : searchModels(models, query)).slice(0, 50).map((m) => ({
        value: m.id,
        label: starred.size === 0 ? m.id : `${starred.has(m.id) ? "★" : " "} ${m.id}`,
        hint: m.name,
      })),
    models.some((m) => m.id === current) ? current : undefined,
  );
}

/** `/model star` and `/model unstar`: the model in use joins or leaves config `favorites`. */
async function starModel(context: ChatContext, on: boolean): Promise<void> {
  const id = `${context.session.provider.id}/${context.session.model}`;
  const config = context.session.configuration;
  const favorites = config.favorites ?? [];
  if (favorites.includes(id) === on) {
    context.print(context.style.dim(`${id} is ${on ? "already" : "not"} a favourite`));
    return;
  }
  const next = on ? [...favorites, id] : favorites.filter((f) => f !== id);
  config.favorites = next; // this chat's picker and completion follow at once, saved or not
  const { note } = await context.saveSetting(["favorites"], next);
  context.print(context.style.dim(`${on ? "★ starred" : "unstarred"} ${id}${note}`));
}

async function switchModel(context: ChatContext, spec: string): Promise<void> {
  await context.session.setModel(spec);
  const { session } = context;
  const window = session.contextWindow;
  context.print(
    context.style.dim(
      `model: ${session.provider.id}/${session.model}${window ? ` · ${formatTokens(window)} context` : ""}`,
    ),
  );
}

const help: Command = {
  name: "help",
  summary: "commands and keys",
  run(_args, context) {
    for (const line of context.registry.help()) context.print(line);
    context.print("");
    context.print(
      context.style.dim(
        "keys: Enter send · \\ at the end of a line continues it · Tab completes · ↑/↓ history\n" +
          "      Ctrl+C cancels a turn (twice on an empty line exits) · Ctrl+D exits\n" +
          "      Ctrl+T cycles thinking (off → low → medium → high) · Shift+Tab cycles the mode (read → ask → auto)",
      ),
    );
  },
};

const model: Command = {
  name: "model",
  args: "[provider/model]",
  summary: "switch model (a fuzzy picker without one); star|unstar the model in use",
  complete: async (_partial, context) => {
    const { favoritesFirst } = await import("../catalog/favorites.ts");
    const models = favoritesFirst(await context.models(), context.session.configuration.favorites);
    return [...models.map((m) => m.id), "star", "unstar"];
  },
  async run(args, context) {
    if (args === "star" || args === "unstar") {
      await starModel(context, args === "star");
      return;
    }
    const spec = args || (context.interactive ? await chooseModel(context) : undefined);
    if (!spec) {
      context.print(`model: ${context.session.provider.id}/${context.session.model}`);
      return;
    }
    await switchModel(context, spec);
  },
};

const provider: Command = {
  name: "provider",
  args: "[id]",
  summary: "pick a provider, then one of its models",
  complete: (_partial, context) => knownProviderIds(context.session.configuration),
  async run(args, context) {
    const ids = knownProviderIds(context.session.configuration);
    let id = args || undefined;
    if (!id && context.interactive) {
      const configured = new Set((await context.models()).map((m) => m.provider));
      const choices = ids.map((p) => ({ value: p, label: p, hint: configured.has(p) ? "key found" : "" }));
      const { default: Fuse } = await import("fuse.js");
      const fuse = new Fuse(choices, { keys: ["value"], threshold: 0.4 });
      id = await context.pick("Provider", (q) => (q.trim() ? fuse.search(q).map((r) => r.item) : choices));
    }
    if (!id) {
      context.print(`provider: ${context.session.provider.id} (known: ${ids.join(", ")})`);
      return;
    }
    if (!ids.includes(id)) throw new IonError("usage", `unknown provider "${id}" (known: ${ids.join(", ")})`);
    const spec = context.interactive ? await chooseModel(context, id) : undefined;
    if (spec) await switchModel(context, spec);
  },
};

const think: Command = {
  name: "think",
  args: "off|low|medium|high|show|hide",
  summary: "thinking level, or show/hide the model's thinking",
  complete: () => [...THINKING_LEVELS, "show", "hide"],
  async run(args, context) {
    if (args === "show" || args === "hide") {
      context.showThinking = args === "show";
      context.print(context.style.dim(`thinking is ${args === "show" ? "shown" : "hidden"}`));
      return;
    }
    if (!args) {
      context.print(`thinking: ${context.session.thinking} (${context.showThinking ? "shown" : "hidden"})`);
      return;
    }
    if (!(THINKING_LEVELS as readonly string[]).includes(args))
      throw new IonError("usage", `/think takes ${THINKING_LEVELS.join(", ")}, show or hide; got "${args}"`);
    await context.setThinking(args as ThinkingLevel);
  },
};

/** How much each mode lets tools do without asking. */
const MODE_RANK: Record<PermissionMode, number> = { read: 0, ask: 1, auto: 2 };

const mode: Command = {
  name: "mode",
  args: "read|ask|auto",
  summary: "permission mode: read-only tools, ask before writes, or run everything",
  complete: () => [...PERMISSION_MODES],
  // Lowering the mode (or asking what it is) is always safe; raising it takes a person at a terminal.
  refuseWhenPiped(args, context) {
    const current = context.session.mode;
    if (!Object.hasOwn(MODE_RANK, args) || MODE_RANK[args as PermissionMode] <= MODE_RANK[current])
      return undefined;
    return `piped input cannot raise the permission mode (it stays ${current}; \`ion chat -y\` starts in auto)`;
  },
  async run(args, context) {
    if (!args) {
      context.print(`mode: ${context.session.mode}`);
      return;
    }
    if (!(PERMISSION_MODES as readonly string[]).includes(args))
      throw new IonError("usage", `/mode takes ${PERMISSION_MODES.join(", ")}; got "${args}"`);
    await context.setMode(args as PermissionMode);
  },
};

const compact: Command = {
  name: "compact",
  args: "[focus]",
  summary: "summarise the conversation so far (optionally what to focus on)",
  async run(args, context) {
    await context.render((signal) => context.session.compact(args || undefined, signal));
  },
};

const clear: Command = {
  name: "clear",
  summary: "start a new, empty session (the old one is kept)",
  async run(_args, context) {
    await context.session.clear();
    context.print(context.style.dim("new session; the previous one is kept (/resume to go back)"));
  },
};

async function sessionChoices(context: ChatContext) {
  const { relativeTime, shortIds } = await import("../commands/sessions-list.ts");
  const sessions = (await context.session.listSessions()).filter((s) => s.id !== context.session.id);
  const short = shortIds(sessions.map((s) => s.id));
  const now = Date.now();
  return sessions.map((s) => ({
    id: s.id,
    short: short.get(s.id) ?? s.id,
    label: `${short.get(s.id) ?? s.id}  ${relativeTime(s.updated_at, now)}  ${safeForTerminal(s.title)}`,
    here: s.cwd === context.session.cwd,
  }));
}

const resume: Command = {
  name: "resume",
  args: "[id]",
  summary: "continue a saved session (a picker without an id)",
  complete: async (_partial, context) => (await sessionChoices(context)).map((s) => s.short),
  async run(args, context) {
    let id = args || undefined;
    if (!id && context.interactive) {
      const choices = (await sessionChoices(context)).sort((a, b) => Number(b.here) - Number(a.here));
      if (choices.length === 0) {
        context.print("no other saved sessions");
        return;
      }
      const items = choices.map((c) => ({ value: c.id, label: c.label }));
      const { default: Fuse } = await import("fuse.js");
      const fuse = new Fuse(items, { keys: ["label"], threshold: 0.4, ignoreLocation: true });
      id = await context.pick("Resume", (q) => (q.trim() ? fuse.search(q).map((r) => r.item) : items));
    }
    if (!id) {
      context.print("usage: /resume ID (see /sessions)");
      return;
    }
    const opened = await context.session.resume(id);
    context.print(
      context.style.dim(
        `resumed ${opened.id.slice(0, 13)} · ${safeForTerminal(opened.header.title)} · ${counted(opened.messageCount, "message")} · ${context.session.provider.id}/${context.session.model}`,
      ),
    );
    if (context.interactive) {
      const { resumeView } = await import("./resume-view.ts");
      for (const line of resumeView(opened.view, context.style, process.stdout.columns)) context.print(line);
    }
  },
};

const sessions: Command = {
  name: "sessions",
  summary: "saved sessions of this directory",
  async run(_args, context) {
    const here = (await sessionChoices(context)).filter((s) => s.here);
    if (here.length === 0) context.print("no other saved sessions in this directory");
    for (const s of here.slice(0, 20)) context.print(s.label);
    context.print(context.style.dim(`current: ${context.session.id} · /resume ID to switch`));
  },
};

const exportCommand: Command = {
  name: "export",
  args: "[file]",
  summary: "write this session as Markdown",
  // A piped line naming a file could overwrite any file of the user's (~/.bashrc) with chat text.
  refuseWhenPiped: (args) => (args ? "piped input cannot choose where a file is written" : undefined),
  async run(args, context) {
    const { session } = context;
    if (!session.saving)
      throw new IonError("usage", "this chat saves nothing (--no-session): nothing to export");
    const loaded = await session.load();
    if (!loaded) {
      context.print("nothing to export yet");
      return;
    }
    const { renderMarkdown } = await import("../history/export.ts");
    const file = resolve(session.cwd, args || `ion-session-${session.id.slice(0, 13)}.md`);
    // As `ion sessions export`: a Markdown file is read in a terminal too.
    await writeFileAtomic(file, safeForTerminal(renderMarkdown(loaded))).catch((err: unknown) => {
      throw new IonError("io", `cannot write ${file}: ${messageOf(err)}`);
    });
    context.print(context.style.dim(`exported to ${file}`));
  },
};

const quit: Command = {
  name: "quit",
  aliases: ["exit", "q"],
  summary: "leave (Ctrl+D does too)",
  run(_args, context) {
    context.quit();
  },
};

/** The registry with ion's built-in commands; later capabilities `add` theirs. */
export function builtinCommands(): SlashRegistry<ChatContext> {
  return new SlashRegistry<ChatContext>().add(
    help,
    model,
    provider,
    think,
    mode,
    compact,
    clear,
    resume,
    sessions,
    costCommand,
    contextCommand,
    skillsCommand,
    skillCommand,
    exportCommand,
    copyCommand,
    trustCommand,
    sandboxCommand,
    mcpCommand,
    planCommand,
    memoryCommand,
    indexCommand,
    quit,
  );
}
