import { describe, expect, test } from "bun:test";
import { clipLine, tildePath } from "../../src/commands/_shared.ts";

describe("tildePath", () => {
  test("a path under the home directory is written from ~; the home itself, a sibling and no home stay", () => {
    expect(tildePath("/home/ada/notes/a.md", "/home/ada")).toBe("~/notes/a.md");
    expect(tildePath("/home/ada", "/home/ada")).toBe("/home/ada");
    expect(tildePath("/home/adam/a.md", "/home/ada")).toBe("/home/adam/a.md");
    expect(tildePath("/home/ada/a.md", undefined)).toBe("/home/ada/a.md");
    expect(tildePath("/home/ada/a.md", "")).toBe("/home/ada/a.md");
  });
});

describe("clipLine", () => {
  test("white space runs become one space; over the limit it is cut with …, without a trailing space", () => {
    expect(clipLine("  lists\n\tfiles  ", 20)).toBe("lists files");
    expect(clipLine("abcdefghij", 10)).toBe("abcdefghij");
    expect(clipLine("abcdefghijk", 10)).toBe("abcdefghi…");
    expect(clipLine("abcd efghijk", 6)).toBe("abcd…");
  });
});
