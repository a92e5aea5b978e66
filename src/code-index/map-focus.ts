import type { Message } from "../providers/types.ts";
import { MAX_DEFINERS } from "./query.ts";
import type { MapFocus, RepoGraph } from "./repo-map.ts";

/**
 * What a conversation's text says the map should lean toward: the project's files it names (by path,
 * or by a file name that is unique enough) and the defined names it mentions.
 *
 *   focusFrom("why does retryRequest in src/net/http.ts loop?", graph)
 *     → { files: ["src/net/http.ts"], names: ["retryRequest"] }
 */

/** A file name that several files share (`index.ts`) says too little to lean toward all of them. */
const MAX_FILES_PER_NAME = 3;
/** Messages at the end of the conversation the focus is taken from. */
const FOCUS_MESSAGES = 12;
/** The map's size when neither the call nor the config says (config `index.map_tokens`' default). */
export const DEFAULT_MAP_TOKENS = 1000;
/** Words shorter than this are ignored: too many short names are also ordinary words. */
const MIN_NAME_LENGTH = 4;

export function focusFrom(text: string, graph: RepoGraph): MapFocus {
  const files = new Set<string>();
  const byPath = new Set(graph.files);
  const byBase = new Map<string, string[]>();
  for (const path of graph.files) {
    const base = path.slice(path.lastIndexOf("/") + 1);
    byBase.set(base, [...(byBase.get(base) ?? []), path]);
  }
  for (const [token] of text.matchAll(/[\w.@/-]+\.[A-Za-z0-9]+/g)) {
    const path = token.replace(/^\.\//, "");
    if (byPath.has(path)) files.add(path);
    else if (!path.includes("/")) {
      const same = byBase.get(path) ?? [];
      if (same.length <= MAX_FILES_PER_NAME) for (const match of same) files.add(match);
    } else {
      // A path written from elsewhere (an absolute one, `../repo/src/a.ts`): its longest known tail.
      const parts = path.split("/");
      for (let start = 1; start < parts.length; start++) {
        const tail = parts.slice(start).join("/");
        if (byPath.has(tail)) {
          files.add(tail);
          break;
        }
      }
    }
  }

  const mentioned = new Set<string>();
  for (const [word] of text.matchAll(/[A-Za-z_$][\w$]*/g))
    if (word.length >= MIN_NAME_LENGTH) mentioned.add(word);
  const definers = new Map<string, number>();
  for (const symbols of graph.definitionsByFile.values()) {
    const seen = new Set<string>();
    for (const { name } of symbols) {
      if (!mentioned.has(name) || seen.has(name)) continue;
      seen.add(name);
      definers.set(name, (definers.get(name) ?? 0) + 1);
    }
  }
  // A name defined in many files (`run`, `get`) is too common to mean one thing: the graph's own cut.
  const names = [...definers].filter(([, count]) => count <= MAX_DEFINERS).map(([name]) => name);
  return { files: [...files], names };
}

/**
 * The text of the conversation's last messages (what the user asked and the model said), without
 * context messages: a repo map or recalled memories there would lean the map toward everything.
 */
export function conversationText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages.slice(-FOCUS_MESSAGES)) {
    if (message.role === "user" && message.context) continue;
    for (const block of message.content) if (block.type === "text") parts.push(block.text);
  }
  return parts.join("\n");
}
