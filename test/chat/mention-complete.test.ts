import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MentionCompleter } from "../../src/chat/mention-complete.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "ion-mention-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const ws = tree(join(root, "ws"), {
  "src/main.ts": "",
  "src/chat/input.ts": "",
  "src/chat/repl.ts": "",
  "my notes.md": "",
  ".gitignore": "secret.env\n",
  "secret.env": "",
});
const completer = () => new MentionCompleter(() => ({ root: ws, allow: [] }));

describe("MentionCompleter", () => {
  test("a typed prefix completes like a shell: every path it begins", async () => {
    const [candidates, replaced] = await completer().complete("see @src/ch");
    expect(replaced).toBe("@src/ch");
    expect(candidates.sort()).toEqual(["@src/chat/input.ts", "@src/chat/repl.ts"]);
  });

  test("no prefix match: the best fuzzy match replaces the word; Tab again offers the next", async () => {
    const mentions = completer();
    expect(await mentions.complete("explain @srcmai")).toEqual([["@src/main.ts"], "@srcmai"]);
    const [[next]] = await mentions.complete("explain @src/main.ts");
    expect(next).toBeDefined();
    expect(next).not.toBe("@src/main.ts");
  });

  test("paths with spaces come back quoted as begun, else escaped", async () => {
    expect(await completer().complete('@"my n')).toEqual([['@"my notes.md"'], '@"my n']);
    expect(await completer().complete("@my")).toEqual([["@my\\ notes.md"], "@my"]);
  });

  test("a .gitignored file is not offered", async () => {
    const [candidates] = await completer().complete("@secret");
    expect(candidates.join(" ")).not.toContain("secret.env");
  });

  test("not a mention (an email address, a finished word): nothing", async () => {
    expect(await completer().complete("mail me@exa")).toEqual([[], "mail me@exa"]);
    expect(await completer().complete("@src/main.ts ")).toEqual([[], "@src/main.ts "]);
  });

  test("a walk that hits its cap completes among what it found, without failing", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${String(i).padStart(3, "0")}/f.txt`] = "";
    const big = tree(join(root, "big"), files);
    const capped = new MentionCompleter(() => ({ root: big, allow: [] }), { maxEntries: 50, budgetMs: 5000 });
    const [candidates] = await capped.complete("@d0");
    expect(candidates.length).toBeGreaterThan(0);
    // Past the cap: not found (a fuzzy match among the files found comes instead).
    expect((await capped.complete("@d299/f.t"))[0]).not.toContain("@d299/f.txt");
    // Out of time before the last directory (each is an await on the file system): the same.
    const timed = new MentionCompleter(() => ({ root: big, allow: [] }), { maxEntries: 20_000, budgetMs: 1 });
    expect((await timed.complete("@d299/f.t"))[0]).not.toContain("@d299/f.txt");
    const whole = new MentionCompleter(() => ({ root: big, allow: [] }));
    expect(await whole.complete("@d299/f.t")).toEqual([["@d299/f.txt"], "@d299/f.t"]);
  });
});
