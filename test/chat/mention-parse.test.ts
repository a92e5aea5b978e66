import { describe, expect, test } from "bun:test";
import { mentionAtEnd, mentionsIn, mentionText } from "../../src/chat/mention-parse.ts";

describe("mentionsIn", () => {
  test("a plain mention, at the start, after a space or an opening parenthesis", () => {
    expect(mentionsIn("@a.ts explain (see @docs/x.md) and @b")).toEqual([
      { path: "a.ts" },
      { path: "docs/x.md)", trimmed: "docs/x.md" },
      { path: "b" },
    ]);
  });

  test("an email address or a word with @ inside is not a mention", () => {
    expect(mentionsIn("mail me@example.com or a@b")).toEqual([]);
  });

  test("a sentence's closing punctuation is offered trimmed, the path as written first", () => {
    expect(mentionsIn("what is in @shot.png?")).toEqual([{ path: "shot.png?", trimmed: "shot.png" }]);
    expect(mentionsIn("read @notes.md, then @a.ts.")).toEqual([
      { path: "notes.md,", trimmed: "notes.md" },
      { path: "a.ts.", trimmed: "a.ts" },
    ]);
  });

  test("quoted paths and backslash-escaped spaces", () => {
    expect(mentionsIn("compare @\"my notes.md\" with @'old notes.md'.")).toEqual([
      { path: "my notes.md" },
      { path: "old notes.md" },
    ]);
    expect(mentionsIn("look at @my\\ notes.md please")).toEqual([{ path: "my notes.md" }]);
  });

  test("an unclosed quote, a bare @ and repeats are not mentions (or count once)", () => {
    expect(mentionsIn('@"never closed and @ alone')).toEqual([]);
    expect(mentionsIn("@a.ts and @a.ts again")).toEqual([{ path: "a.ts" }]);
  });
});

describe("mentionAtEnd", () => {
  test("the mention being typed at the cursor", () => {
    expect(mentionAtEnd("explain @srcmai")).toEqual({ start: 8, path: "srcmai", quote: undefined });
    expect(mentionAtEnd("@")).toEqual({ start: 0, path: "", quote: undefined });
    expect(mentionAtEnd('see @"my no')).toEqual({ start: 4, path: "my no", quote: '"' });
    expect(mentionAtEnd("see @my\\ no")).toEqual({ start: 4, path: "my no", quote: undefined });
  });

  test("nothing when the cursor is past the mention or inside an email address", () => {
    expect(mentionAtEnd("explain @a.ts ")).toBeUndefined();
    expect(mentionAtEnd("mail me@exa")).toBeUndefined();
    expect(mentionAtEnd("/model gpt")).toBeUndefined();
  });
});

describe("mentionText", () => {
  test("reads back as the same path", () => {
    expect(mentionText("src/main.ts")).toBe("@src/main.ts");
    expect(mentionText("my notes.md")).toBe("@my\\ notes.md");
    expect(mentionText("my notes.md", '"')).toBe('@"my notes.md"');
    for (const path of ["a b\\c.md", '"quoted".md', "it's.md", "tab\there.md"])
      expect(mentionsIn(`x ${mentionText(path)} y`)).toEqual([{ path }]);
  });
});
