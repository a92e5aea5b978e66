import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Writes `text` to `path`, making its directories first (a test's config, agent and skill files). */
export function writeWithDirs(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
