import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseOnly, tagsOf } from "../../src/code-index/parse.ts";
import type { FileTags, SymbolDef } from "../../src/code-index/types.ts";

const SRC = join(import.meta.dir, "../../src");
const encode = (text: string) => new TextEncoder().encode(text);

async function tagsOfFile(path: string): Promise<{ text: string; tags: FileTags }> {
  const bytes = await Bun.file(path).bytes();
  const tags = await tagsOf(path, bytes);
  if ("skipped" in tags) throw new Error(`${path} skipped: ${tags.skipped}`);
  return { text: new TextDecoder().decode(bytes), tags };
}

/** 1-based line of the first line containing `needle` at or after line `from`. */
function lineOf(text: string, needle: string, from = 1): number {
  const lines = text.split("\n");
  const index = lines.findIndex((line, i) => i >= from - 1 && line.includes(needle));
  if (index < 0) throw new Error(`"${needle}" not found`);
  return index + 1;
}

function definition(tags: FileTags, name: string, kind: string): SymbolDef {
  const found = tags.definitions.filter((d) => d.name === name && d.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as SymbolDef;
}

describe("TypeScript: this project's own code", () => {
  test("src/agent/session.ts: the session class and its methods, with lines, signatures and parent", async () => {
    const { text, tags } = await tagsOfFile(join(SRC, "agent/session.ts"));
    expect(tags.language).toBe("typescript");
    expect(tags.hasErrors).toBe(false);

    const classLine = lineOf(text, "export class AgentSession");
    // The class ends at the first line after it that is a lone closing brace.
    const classEnd = text.split("\n").findIndex((line, i) => i >= classLine && line === "}") + 1;
    expect(definition(tags, "AgentSession", "class")).toEqual({
      name: "AgentSession",
      kind: "class",
      line: classLine,
      endLine: classEnd,
      signature: "export class AgentSession {",
    });

    const turn = definition(tags, "turn", "method");
    const turnLine = lineOf(text, "async *turn(", classLine);
    expect(turn.line).toBe(turnLine);
    expect(turn.parent).toBe("AgentSession");
    expect(turn.signature).toBe((text.split("\n")[turnLine - 1] ?? "").trim());
    expect(turn.endLine).toBeGreaterThan(turn.line);
    expect(turn.endLine).toBeLessThan(classEnd);

    const open = definition(tags, "open", "method");
    expect(open.line).toBe(lineOf(text, "static async open(", classLine));
    expect(open.parent).toBe("AgentSession");
    expect(open.signature.startsWith("static async open(")).toBe(true);

    // Getters are methods too.
    expect(definition(tags, "id", "method").line).toBe(lineOf(text, "get id()", classLine));
    // Definitions come in source order.
    const lines = tags.definitions.map((d) => d.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  test("src/code-index/types.ts: interfaces come from TypeScript's own tags query", async () => {
    const { text, tags } = await tagsOfFile(join(SRC, "code-index/types.ts"));
    for (const name of ["SymbolDef", "SymbolRef", "FileTags"]) {
      const found = definition(tags, name, "interface");
      expect(found.line).toBe(lineOf(text, `export interface ${name} `));
      expect(found.signature).toBe(`export interface ${name} {`);
    }
  });

  test("references: calls, constructions and type annotations, with lines; require() is not a call", async () => {
    const source = [
      "const fs = require('node:fs');",
      "function load(path: string): Config {",
      "  return parseConfig(fs.readFileSync(path));",
      "}",
      "const cache = new Map();",
    ].join("\n");
    const tags = await tagsOf("config.ts", encode(source));
    if ("skipped" in tags) throw new Error("skipped");
    expect(tags.references).toEqual([
      { name: "Config", kind: "type", line: 2 },
      { name: "parseConfig", kind: "call", line: 3 },
      { name: "readFileSync", kind: "call", line: 3 },
      { name: "Map", kind: "class", line: 5 },
    ]);
    expect(tags.definitions.map((d) => [d.name, d.kind, d.line, d.endLine])).toEqual([
      ["load", "function", 2, 4],
    ]);
  });

  test("a syntax error mid-file still yields the definitions before and after it", async () => {
    const source = [
      "export function before(): number {",
      "  return 1;",
      "}",
      "export function broken(: {",
      "  return (;",
      "}",
      "export class After {",
      "  run(): void {}",
      "}",
    ].join("\n");
    const tags = await tagsOf("broken.ts", encode(source));
    if ("skipped" in tags) throw new Error("skipped");
    expect(tags.hasErrors).toBe(true);
    const names = tags.definitions.map((d) => `${d.kind} ${d.name}:${d.line}`);
    expect(names).toContain("function before:1");
    expect(names).toContain("class After:7");
    expect(names).toContain("method run:8");
  });
});

describe("TSX and JavaScript", () => {
  test("a .tsx component file parses with the TSX grammar", async () => {
    const source = [
      "interface Props { title: string }",
      "export function Header(props: Props) {",
      "  return <h1 className='title'>{props.title}</h1>;",
      "}",
      "export const Footer = () => <footer />;",
    ].join("\n");
    const tags = await tagsOf("ui/Header.tsx", encode(source));
    if ("skipped" in tags) throw new Error("skipped");
    expect(tags.language).toBe("tsx");
    expect(tags.hasErrors).toBe(false);
    expect(tags.definitions.map((d) => [d.kind, d.name, d.line])).toEqual([
      ["interface", "Props", 1],
      ["function", "Header", 2],
      ["function", "Footer", 5],
    ]);
  });

  test("JavaScript: classes, methods (not the constructor), function expressions, JSX", async () => {
    const source = [
      "class Queue {",
      "  constructor() { this.items = []; }",
      "  push(item) { this.items.push(item); }",
      "}",
      "const render = function () { return <Queue />; };",
      "module.exports.drain = (queue) => queue.items.splice(0);",
    ].join("\n");
    const tags = await tagsOf("queue.jsx", encode(source));
    if ("skipped" in tags) throw new Error("skipped");
    expect(tags.language).toBe("javascript");
    expect(tags.definitions).toEqual([
      { name: "Queue", kind: "class", line: 1, endLine: 4, signature: "class Queue {" },
      {
        name: "push",
        kind: "method",
        line: 3,
        endLine: 3,
        signature: "push(item) { this.items.push(item); }",
        parent: "Queue",
      },
      {
        name: "render",
        kind: "function",
        line: 5,
        endLine: 5,
        signature: "const render = function () { return <Queue />; };",
      },
      {
        name: "drain",
        kind: "function",
        line: 6,
        endLine: 6,
        signature: "module.exports.drain = (queue) => queue.items.splice(0);",
      },
    ]);
  });

  test("a signature is the definition's line, trimmed and cut at 200 characters", async () => {
    const long = `export function wide(${Array.from({ length: 40 }, (_, i) => `p${i}: number`).join(", ")}) {}`;
    const tags = await tagsOf("wide.ts", encode(`\t  ${long}\n`));
    if ("skipped" in tags) throw new Error("skipped");
    expect(tags.definitions[0]?.signature).toBe(long.slice(0, 200));
  });
});

describe("parseOnly", () => {
  test("parses without the tags query and says whether the tree has errors", async () => {
    expect(await parseOnly("a.ts", "const a: number = 1;\n")).toEqual({
      language: "typescript",
      hasErrors: false,
    });
    expect(await parseOnly("a.py", "def f(:\n")).toEqual({ language: "python", hasErrors: true });
    expect(await parseOnly("notes.txt", "hello")).toBeUndefined();
  });
});
