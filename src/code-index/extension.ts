import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PromptInfo, SessionExtension, SessionStartInfo } from "../agent/session-extension.ts";
import { dataDir, type Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { messageOf } from "../util/error-text.ts";
import { conversationText, DEFAULT_MAP_TOKENS, focusFrom } from "./map-focus.ts";

/**
 * The chat's repo map: when the project has a code index and `index.map_tokens` is above 0 (default
 * 1 000), a chat's first turn starts with one context message holding the map, leaning toward what
 * the prompt mentions. It is saved with the turn like any context message and never repeated while
 * the conversation holds it (after /clear or a compaction that dropped it, the next turn adds it again).
 * The system prompt never changes, so the provider's prompt cache keeps working.
 *
 * Nothing of the index loads until a turn asks: a project without an index costs a stat.
 */

export const INDEX_EXTENSION = "index";

/** How long the first turn waits for the index to catch up with the files before the map is drawn. */
const REFRESH_LIMIT_MS = 10_000;

const HEADING =
  "Repository map from ion's code index: the most referenced files of this project, each with its main " +
  "definitions as `line: signature`. The symbols tool finds any definition, outline or reference.";

export class SessionRepoMap implements SessionExtension {
  readonly name = INDEX_EXTENSION;
  private setup: { cwd: string; env: Env; config: Config; notice: (text: string) => void } | undefined;

  async sessionStart(info: SessionStartInfo): Promise<void> {
    if (!info.config || !info.env) return;
    this.setup = { cwd: info.cwd, env: info.env, config: info.config, notice: info.notice ?? (() => {}) };
  }

  async turnContext(prompt: PromptInfo): Promise<string | undefined> {
    const setup = this.setup;
    const tokens = setup?.config.index?.map_tokens ?? DEFAULT_MAP_TOKENS;
    if (!setup || tokens <= 0) return undefined;
    if (prompt.messages.some((m) => m.role === "user" && m.context?.source === INDEX_EXTENSION))
      return undefined;
    try {
      return await repoMapContext(setup, tokens, prompt);
    } catch (err) {
      // A locked or damaged index costs the chat its map, never the turn.
      setup.notice(`warning: code index: ${messageOf(err)}`);
      return undefined;
    }
  }
}

async function repoMapContext(
  { cwd, env, notice }: { cwd: string; env: Env; notice: (text: string) => void },
  tokens: number,
  prompt: PromptInfo,
): Promise<string | undefined> {
  // No index anywhere (ion index never ran): nothing of the index needs to load to know it.
  if (!existsSync(join(dataDir(env), "index"))) return undefined;
  const { existingIndex } = await import("./project-index.ts");
  const project = existingIndex(cwd, env);
  if (!project) return undefined;
  const limit = AbortSignal.timeout(REFRESH_LIMIT_MS);
  try {
    await project.refresh({ signal: limit });
  } catch (err) {
    // Many files changed (another branch checked out): the map of what is indexed so far will do.
    if (!limit.aborted) throw err;
  }
  // A damaged index moved aside and rebuilt: said once, the map still comes.
  for (const warning of project.warnings.splice(0)) notice(`warning: code index: ${warning}`);
  const { renderRepoMap } = await import("./repo-map.ts");
  const graph = project.index.fileGraph();
  const said = `${conversationText(prompt.messages)}\n${prompt.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")}`;
  const map = renderRepoMap(graph, { tokens, focus: focusFrom(said, graph), heading: HEADING });
  return map.text === "" ? undefined : map.text;
}
