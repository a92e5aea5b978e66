import { knownKeysAt } from "../config/edit.ts";
import type { Word } from "./words.ts";

/** Dotted setting names for `ion config get|set|unset`, one level at a time: `thinking`, `memory.enabled`. */
export function configKeyWords(prefix: string): Word[] {
  const parent = prefix.split(".").slice(0, -1);
  const keys = knownKeysAt(parent) ?? [];
  return keys.map((key) => ({ value: [...parent, key].join("."), description: "" }));
}
