import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tagsOf } from "../../src/code-index/parse.ts";
import type { FileTags } from "../../src/code-index/types.ts";

const FIXTURES = join(import.meta.dir, "fixtures");

async function tagsOfFixture(path: string): Promise<FileTags> {
  const full = join(FIXTURES, path);
  const tags = await tagsOf(full, await Bun.file(full).bytes());
  if ("skipped" in tags) throw new Error(`${path} skipped: ${tags.skipped}`);
  return tags;
}

/** `kind name line-endLine [parent]`: one line per definition, easy to read in a failure. */
function outline(tags: FileTags): string[] {
  return tags.definitions.map(
    (d) => `${d.kind} ${d.name} ${d.line}-${d.endLine}${d.parent ? ` in ${d.parent}` : ""}`,
  );
}

describe("Python", () => {
  test("shapes.py: module constant, classes, methods (kind function, parent class), a function", async () => {
    const tags = await tagsOfFixture("python/shapes.py");
    expect(tags).toMatchObject({ language: "python", hasErrors: false });
    expect(outline(tags)).toEqual([
      "constant UNIT 5-5",
      "class Shape 8-15",
      "function area 11-12 in Shape",
      "function describe 14-15 in Shape",
      "class Circle 18-24",
      "function __init__ 19-20 in Circle",
      "function area 23-24 in Circle",
      "function largest 27-28",
    ]);
    expect(tags.definitions.find((d) => d.name === "Circle")?.signature).toBe("class Circle(Shape):");
    expect(tags.references).toEqual([
      { name: "type", kind: "call", line: 15 },
      { name: "area", kind: "call", line: 15 },
      { name: "max", kind: "call", line: 28 },
      { name: "area", kind: "call", line: 28 },
    ]);
  });

  test("broken.py: a syntax error mid-file, definitions before and after it recovered", async () => {
    const tags = await tagsOfFixture("python/broken.py");
    expect(tags.hasErrors).toBe(true);
    expect(outline(tags)).toEqual([
      "function before 1-2",
      "function broken 5-6",
      "class After 9-11",
      "function after 10-11 in After",
    ]);
    expect(tags.references).toEqual([{ name: "before", kind: "call", line: 11 }]);
  });
});

describe("Rust", () => {
  test("lib.rs: module, enum, trait, struct, impl methods (parent: the impl's type), macro, function", async () => {
    const tags = await tagsOfFixture("rust/src/lib.rs");
    expect(tags).toMatchObject({ language: "rust", hasErrors: false });
    expect(outline(tags)).toEqual([
      "module ops 3-3",
      "class Value 6-9",
      "interface Eval 11-13",
      "class Machine 15-17",
      "method new 20-22 in Machine",
      "method run 24-29 in Machine",
      "macro push 32-36",
      "function top 38-40",
    ]);
    expect(tags.definitions.find((d) => d.name === "run")?.signature).toBe(
      "pub fn run(&mut self, program: &[Box<dyn Eval>]) -> Result<(), String> {",
    );
    expect(tags.references).toContainEqual({ name: "Machine", kind: "implementation", line: 19 });
    expect(tags.references).toContainEqual({ name: "eval", kind: "call", line: 26 });
  });

  test("ops.rs: a trait implemented for a type; a method is tagged once, as a method", async () => {
    const tags = await tagsOfFixture("rust/src/ops.rs");
    expect(outline(tags)).toEqual(["class Add 3-3", "method eval 6-11 in Add", "function pop_int 14-19"]);
    expect(tags.references.filter((r) => r.kind === "implementation")).toEqual([
      { name: "Eval", kind: "implementation", line: 5 },
    ]);
    expect(tags.references.filter((r) => r.name === "pop_int").map((r) => r.line)).toEqual([7, 8]);
  });
});

describe("Go", () => {
  test("store.go: types, a function, methods (parent: the receiver's type)", async () => {
    const tags = await tagsOfFixture("go/store.go");
    expect(tags).toMatchObject({ language: "go", hasErrors: false });
    expect(outline(tags)).toEqual([
      "type Counter 13-16",
      "type Store 19-21",
      "type memoryStore 23-26",
      "function NewStore 29-31",
      "method Get 34-46 in memoryStore",
      "method Increment 49-53 in Counter",
    ]);
    expect(tags.definitions.find((d) => d.name === "Get")?.signature).toBe(
      "func (s *memoryStore) Get(name string) (*Counter, error) {",
    );
    // A type's own name is its definition, not also a reference to it.
    expect(tags.references.filter((r) => r.name === "Counter").map((r) => r.line)).toEqual([
      20, 25, 30, 34, 43, 49,
    ]);
    expect(tags.references).toContainEqual({ name: "Errorf", kind: "call", line: 41 });
  });

  test("broken.go: a syntax error mid-file, the functions before and after it recovered", async () => {
    const tags = await tagsOfFixture("go/broken.go");
    expect(tags.hasErrors).toBe(true);
    expect(outline(tags)).toEqual(["function Reset 3-5", "function Broken 7-9", "function Count 11-13"]);
  });
});
