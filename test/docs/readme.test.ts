/** The README a new user reads first: every chat command is in its table, every "see X" names a heading. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { builtinCommands } from "../../src/chat/slash.ts";

const README = await Bun.file(join(import.meta.dir, "../../README.md")).text();
const headings = new Set(
  [...README.matchAll(/^#{1,4} (.+)$/gm)].map((match) => match[1]!.replaceAll("`", "").trim()),
);

describe("README", () => {
  test("the Chat section's slash-command table lists every built-in command", () => {
    const chat = README.slice(README.indexOf("\n## Chat\n"), README.indexOf("\n## `ion run`\n"));
    const rows = [...chat.matchAll(/^\| `\/(\w+)/gm)].map((match) => match[1]);
    const missing = builtinCommands()
      .list()
      .map((command) => command.name)
      .filter((name) => !rows.includes(name));
    expect(missing).toEqual([]);
  });

  test('every (see "X") points to a heading that exists', () => {
    // `see "Retries" under "Providers"` names a paragraph of a section: the section is the heading.
    const targets = [...README.matchAll(/see "([^"]+)"(?: under "([^"]+)")?/g)].map((match) =>
      (match[2] ?? match[1]!).replace(/\s+/g, " "),
    );
    expect(targets.length).toBeGreaterThan(5);
    expect(targets.filter((target) => !headings.has(target))).toEqual([]);
  });
});
