import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  definitions,
  fileGraph,
  findDefinitions,
  findReferences,
  fuzzyDefinitions,
  MAX_DEFINERS,
  outline,
} from "../../src/code-index/query.ts";
import { connect } from "../../src/code-index/store-open.ts";
import { indexedWords, nameWords, prefixQuery } from "../../src/code-index/store-words.ts";
import { clearAll, type ParsedFile, pruneNames, writeBatch } from "../../src/code-index/store-write.ts";
import type { SymbolDef, SymbolRef } from "../../src/code-index/types.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-index-store-");
const open: Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function newDb(): Database {
  const db = connect(join(tempDir(), "index", "test.db"), "/project");
  open.push(db);
  return db;
}

/** A parsed file made by hand: definitions as `[name, kind, line, endLine, parent?]`, references as `[name, line]`. */
function file(
  path: string,
  defs: [string, string, number, number, string?][],
  refs: [string, number][] = [],
): ParsedFile {
  const definitions: SymbolDef[] = defs.map(([name, kind, line, endLine, parent]) => ({
    name,
    kind,
    line,
    endLine,
    signature: `${kind} ${name}`,
    ...(parent ? { parent } : {}),
  }));
  const references: SymbolRef[] = refs.map(([name, line]) => ({ name, kind: "call", line }));
  return {
    path,
    size: 100,
    mtimeMs: 1,
    hash: path,
    language: "typescript",
    tags: { language: "typescript", definitions, references, hasErrors: false },
  };
}

function store(db: Database, ...parsed: ParsedFile[]): void {
  writeBatch(db, { parsed, touched: [], removed: [] });
}

const where = (hits: { path: string; line: number }[]) => hits.map((hit) => `${hit.path}:${hit.line}`);

describe("name words", () => {
  test("split on case changes, acronyms, digits and underscores, lower-cased", () => {
    expect(nameWords("parseHttpRequest")).toEqual(["parse", "http", "request"]);
    expect(nameWords("HTTPServer2_start")).toEqual(["http", "server", "2", "start"]);
    expect(nameWords("MAX_DEFINERS")).toEqual(["max", "definers"]);
    expect(nameWords("$el")).toEqual(["el"]);
    expect(nameWords("größeBerechnen")).toEqual(["größe", "berechnen"]);
  });

  test("the FTS text adds the whole name when it has several words; a query becomes quoted prefixes", () => {
    expect(indexedWords("parseHttpRequest")).toBe("parse http request parsehttprequest");
    expect(indexedWords("retry")).toBe("retry");
    expect(prefixQuery(nameWords("httpReq"))).toBe('"http"* "req"*');
    expect(prefixQuery(['a"b', "near"], true)).toBe('"a""b"* OR "near"*');
  });
});

describe("definitions", () => {
  test("exact name first; another case only when no exact one exists", () => {
    const db = newDb();
    store(
      db,
      file("src/a.ts", [["Retry", "class", 3, 20]]),
      file("src/b.ts", [
        ["retry", "function", 5, 9],
        ["retryLater", "function", 11, 12],
      ]),
    );
    expect(definitions(db, "retry", 10)).toMatchObject({
      match: "exact",
      total: 1,
      hits: [{ path: "src/b.ts" }],
    });
    expect(definitions(db, "RETRY", 10)).toMatchObject({ match: "case-insensitive", total: 2 });
    expect(where(definitions(db, "RETRY", 10).hits)).toEqual(["src/a.ts:3", "src/b.ts:5"]);
    expect(definitions(db, "retr", 10)).toEqual({ hits: [], total: 0, match: "none" });
  });

  test("a capped answer still counts every match", () => {
    const db = newDb();
    store(
      db,
      ...Array.from({ length: 7 }, (_, i) => file(`src/f${i}.ts`, [["run", "function", i + 1, i + 2]])),
    );
    const found = definitions(db, "run", 3);
    expect(found.hits).toHaveLength(3);
    expect(found.total).toBe(7);
  });

  test("fuzzy: words of the name by prefix in any order, then a substring of the name", () => {
    const db = newDb();
    store(
      db,
      file("src/http.ts", [
        ["parseHttpRequest", "function", 1, 10],
        ["HttpRequestError", "class", 12, 20],
        ["request", "function", 22, 30],
      ]),
      file("src/other.ts", [["parseOptions", "function", 1, 5]]),
    );
    const names = (query: string) => fuzzyDefinitions(db, query, 10).hits.map((hit) => hit.name);
    expect(names("httpReq").sort()).toEqual(["HttpRequestError", "parseHttpRequest"]);
    expect(names("request http parse")).toEqual(["parseHttpRequest"]);
    expect(names("parsehttp")).toEqual(["parseHttpRequest"]); // the whole name, typed without its case
    expect(names("parse").sort()).toEqual(["parseHttpRequest", "parseOptions"]);
    expect(names("ttpreq").sort()).toEqual(["HttpRequestError", "parseHttpRequest"]); // substring
    expect(names("nothing")).toEqual([]);
    expect(names("request parse")).toEqual(["parseHttpRequest"]);
    // No name has both words: names with either.
    expect(names("options request").sort()).toEqual([
      "HttpRequestError",
      "parseHttpRequest",
      "parseOptions",
      "request",
    ]);
    expect(fuzzyDefinitions(db, "httpReq", 1)).toMatchObject({ total: 2, match: "fuzzy" });
  });

  test("fuzzy: a query word that is a whole word of a name ranks that name before names it only starts", () => {
    const db = newDb();
    store(
      db,
      file("src/retry.ts", [
        ["retryable", "function", 1, 2],
        ["RetryPolicy", "interface", 3, 9],
        ["isRetryable", "function", 10, 12],
        ["retryDelayMs", "function", 13, 15],
      ]),
    );
    expect(fuzzyDefinitions(db, "retry", 10).hits.map((hit) => hit.name)).toEqual([
      "RetryPolicy",
      "retryDelayMs",
      "retryable",
      "isRetryable", // "retryable" is a word of it: fewer other words first
    ]);
  });

  test("findDefinitions goes exact → any case → fuzzy", () => {
    const db = newDb();
    store(db, file("src/a.ts", [["parseHttpRequest", "function", 1, 10]]));
    expect(findDefinitions(db, "parseHttpRequest", 5).match).toBe("exact");
    expect(findDefinitions(db, " PARSEHTTPREQUEST ", 5).match).toBe("case-insensitive");
    expect(findDefinitions(db, "httpRequest", 5).match).toBe("fuzzy");
    expect(findDefinitions(db, "zzz", 5)).toEqual({ hits: [], total: 0, match: "none" });
  });
});

describe("outline and references", () => {
  test("an outline is in line order, a class before its methods, each method with its parent", () => {
    const db = newDb();
    store(
      db,
      file("src/session.ts", [
        ["helper", "function", 40, 45],
        ["Session", "class", 3, 30],
        ["turn", "method", 10, 20, "Session"],
        ["constructor", "method", 5, 8, "Session"],
      ]),
    );
    expect(outline(db, "src/session.ts").map((hit) => [hit.line, hit.name, hit.parent])).toEqual([
      [3, "Session", undefined],
      [5, "constructor", "Session"],
      [10, "turn", "Session"],
      [40, "helper", undefined],
    ]);
    expect(outline(db, "src/missing.ts")).toEqual([]);
  });

  test("references by exact name, each with the innermost definition around it", () => {
    const db = newDb();
    store(
      db,
      file(
        "src/caller.ts",
        [
          ["Loader", "class", 1, 20],
          ["load", "method", 5, 10, "Loader"],
        ],
        [
          ["retry", 7],
          ["retry", 30],
          ["Retry", 8],
        ],
      ),
    );
    const found = findReferences(db, "retry", 10, true);
    expect(found.total).toBe(2);
    expect(found.hits).toEqual([
      {
        path: "src/caller.ts",
        line: 7,
        kind: "call",
        name: "retry",
        enclosing: { name: "load", kind: "method", line: 5 },
      },
      { path: "src/caller.ts", line: 30, kind: "call", name: "retry" },
    ]);
    expect(findReferences(db, "retry", 1, false)).toEqual({
      hits: [{ path: "src/caller.ts", line: 7, kind: "call", name: "retry" }],
      total: 2,
    });
  });
});

describe("the file graph", () => {
  test("edges from referencing to defining files, weighted by references; common and own names make none", () => {
    const db = newDb();
    const everywhere = Array.from({ length: MAX_DEFINERS + 1 }, (_, i) =>
      file(`src/common${i}.ts`, [["toString", "method", 1, 2]]),
    );
    store(
      db,
      file("src/core.ts", [["retry", "function", 1, 5]]),
      file("src/pair1.ts", [["Shared", "interface", 1, 5]]),
      file("src/pair2.ts", [["Shared", "class", 1, 5]]),
      file(
        "src/user.ts",
        [["local", "function", 1, 3]],
        [
          ["retry", 2],
          ["retry", 3],
          ["Shared", 4],
          ["local", 5],
          ["toString", 6],
          ["undefinedAnywhere", 7],
        ],
      ),
      file("src/own.ts", [["retry", "function", 1, 2]], [["retry", 5]]),
      ...everywhere,
    );
    const graph = fileGraph(db);
    expect(graph.edges).toEqual([
      // retry, referenced twice (√2), is defined by core.ts and own.ts: split in two.
      ["src/user.ts", "src/core.ts", Math.SQRT2 / 2],
      ["src/user.ts", "src/own.ts", Math.SQRT2 / 2],
      ["src/user.ts", "src/pair1.ts", 0.5],
      ["src/user.ts", "src/pair2.ts", 0.5],
    ]);
    expect(graph.files).toContain("src/common0.ts");
    expect(graph.definitionsByFile.get("src/user.ts")?.map((hit) => hit.name)).toEqual(["local"]);
  });
});

describe("writing", () => {
  test("storing a file again replaces its definitions and references; removing drops them", () => {
    const db = newDb();
    store(db, file("src/a.ts", [["one", "function", 1, 2]], [["two", 3]]));
    store(db, file("src/a.ts", [["uno", "function", 1, 2]], [["dos", 3]]));
    expect(definitions(db, "one", 5).total).toBe(0);
    expect(findReferences(db, "two", 5, false).total).toBe(0);
    expect(definitions(db, "uno", 5).total).toBe(1);
    writeBatch(db, { parsed: [], touched: [], removed: ["src/a.ts"] });
    expect(definitions(db, "uno", 5).total).toBe(0);
    expect(findReferences(db, "dos", 5, false).total).toBe(0);
  });

  test("a name no longer defined leaves the fuzzy search once names are pruned", () => {
    const db = newDb();
    store(db, file("src/a.ts", [["parseThing", "function", 1, 2]]));
    writeBatch(db, { parsed: [], touched: [], removed: ["src/a.ts"] });
    const names = () => db.query("SELECT name FROM names").all();
    expect(names()).toEqual([{ name: "parseThing" }]);
    pruneNames(db);
    expect(names()).toEqual([]);
    expect(db.query("SELECT count(*) AS n FROM names_fts WHERE names_fts MATCH 'parse*'").get()).toEqual({
      n: 0,
    });
  });

  test("clear empties every table and keeps the root", () => {
    const db = newDb();
    store(db, file("src/a.ts", [["one", "function", 1, 2]], [["two", 3]]));
    clearAll(db);
    for (const table of ["files", "symbols", "refs", "names"])
      expect(db.query(`SELECT count(*) AS n FROM ${table}`).get()).toEqual({ n: 0 });
    expect(db.query("SELECT value FROM meta WHERE key = 'root'").get()).toEqual({ value: "/project" });
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  });
});
