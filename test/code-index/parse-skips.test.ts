import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { languageOf } from "../../src/code-index/languages.ts";
import { DEFAULT_MAX_BYTES, tagsOf } from "../../src/code-index/parse.ts";

const FIXTURES = join(import.meta.dir, "fixtures");
const fixture = (path: string) => Bun.file(join(FIXTURES, path)).bytes();

describe("languageOf", () => {
  test("by extension, case-insensitive; no grammar, no language", () => {
    expect(languageOf("src/a.ts")).toBe("typescript");
    expect(languageOf("types/index.d.ts")).toBe("typescript");
    expect(languageOf("lib/x.mts")).toBe("typescript");
    expect(languageOf("ui/App.tsx")).toBe("tsx");
    expect(languageOf("ui/App.jsx")).toBe("javascript");
    expect(languageOf("a.cjs")).toBe("javascript");
    expect(languageOf("pkg/MAIN.PY")).toBe("python");
    expect(languageOf("stubs/os.pyi")).toBe("python");
    expect(languageOf("src/lib.rs")).toBe("rust");
    expect(languageOf("cmd/main.go")).toBe("go");
    expect(languageOf("README.md")).toBeUndefined();
    expect(languageOf("Makefile")).toBeUndefined();
    expect(languageOf("dir.ts/Makefile")).toBeUndefined();
    expect(languageOf("config/.ts")).toBeUndefined();
  });
});

describe("skipped files", () => {
  test("not UTF-8: a Latin-1 Python file", async () => {
    expect(await tagsOf("python/latin1.py", await fixture("python/latin1.py"))).toEqual({
      skipped: "not-utf8",
    });
  });

  test("over the size cap: the fixture table with a small cap, and one byte over the default cap", async () => {
    const table = await fixture("python/table.py");
    expect(await tagsOf("python/table.py", table, { maxBytes: 4096 })).toEqual({ skipped: "too-large" });
    const parsed = await tagsOf("python/table.py", table);
    expect("skipped" in parsed ? parsed : parsed.definitions.map((d) => d.name)).toEqual(["TABLE", "cube"]);

    const atCap = new Uint8Array(DEFAULT_MAX_BYTES).fill(0x20);
    expect("skipped" in (await tagsOf("big.ts", atCap))).toBe(false);
    const overCap = new Uint8Array(DEFAULT_MAX_BYTES + 1).fill(0x20);
    expect(await tagsOf("big.ts", overCap)).toEqual({ skipped: "too-large" });
  });

  test("binary: a NUL byte in the first 8 KB; one later does not count", async () => {
    const early = new TextEncoder().encode("export const a = 1;\n\0\n");
    expect(await tagsOf("blob.ts", early)).toEqual({ skipped: "binary" });
    const late = new TextEncoder().encode(`${"// padding\n".repeat(800)}const b = "\0";\n`);
    expect(late.byteLength).toBeGreaterThan(8192);
    expect("skipped" in (await tagsOf("late.ts", late))).toBe(false);
  });

  test("unsupported: no grammar for the extension", async () => {
    expect(await tagsOf("notes.md", new TextEncoder().encode("# Notes\n"))).toEqual({
      skipped: "unsupported",
    });
  });

  test("a UTF-8 byte-order mark and non-ASCII names are fine", async () => {
    const source = "\uFEFFdef grüße():\n    return 'hé'\n";
    const tags = await tagsOf("greet.py", new TextEncoder().encode(source));
    if ("skipped" in tags) throw new Error(`skipped: ${tags.skipped}`);
    expect(tags.definitions).toEqual([
      { name: "grüße", kind: "function", line: 1, endLine: 2, signature: "def grüße():" },
    ]);
  });
});
