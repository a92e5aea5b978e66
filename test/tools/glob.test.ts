import { describe, expect, test } from "bun:test";
import { symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { GLOB_MAX_OUTPUT_CHARS, GLOB_MAX_RESULTS, globTool } from "../../src/tools/glob.ts";
import { tree, useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-glob-", {});

/** Sets a file's modification time to `seconds` after the epoch. */
const age = (rel: string, seconds: number) => utimesSync(join(ws.root, rel), seconds, seconds);

const glob = (input: Record<string, unknown>, context = ws.ctx) => globTool.execute(input, context);

describe("glob", () => {
  test("lists matches newest first, relative to the workspace root", async () => {
    tree(ws.root, { "old.ts": "", "src/new.ts": "", "src/mid.ts": "", "src/readme.md": "" });
    age("old.ts", 1_000);
    age("src/mid.ts", 2_000);
    age("src/new.ts", 3_000);
    expect(await glob({ pattern: "**/*.ts" })).toEqual({
      content: "src/new.ts\nsrc/mid.ts\nold.ts",
      is_error: false,
    });
  });

  test("`*` stays in one directory; `path` sets where the pattern is matched from", async () => {
    tree(ws.root, { "a.ts": "", "src/b.ts": "", "src/deep/c.ts": "" });
    expect((await glob({ pattern: "*.ts" })).content).toBe("a.ts");
    expect((await glob({ pattern: "*.ts", path: "src" })).content).toBe("src/b.ts");
    expect((await glob({ pattern: "./src/*/*.ts" })).content).toBe("src/deep/c.ts");
    expect((await glob({ pattern: "src/**/*.{ts,md}" })).content.split("\n").sort()).toEqual([
      "src/b.ts",
      "src/deep/c.ts",
    ]);
  });

  test("caps the list and says how many more matched", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++) files[`f/${String(i).padStart(4, "0")}.txt`] = "";
    tree(ws.root, files);
    age("f/0007.txt", 5_000_000_000);
    const result = await glob({ pattern: "f/*.txt" });
    const lines = result.content.split("\n");
    expect(result.is_error).toBe(false);
    expect(lines[0]).toBe("f/0007.txt");
    expect(lines).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(lines.at(-1)).toBe(
      `[… 5 more files matched (${GLOB_MAX_RESULTS + 5} in all); only the ${GLOB_MAX_RESULTS} newest are listed — narrow the pattern or path]`,
    );
  });

  test("keeps the listing under the character limit, counting the rest as more matched", async () => {
    const dir = "d".repeat(200);
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`${dir}/${String(i).padStart(3, "0")}.txt`] = "";
    tree(ws.root, files);
    const lines = (await glob({ pattern: "**/*.txt" })).content.split("\n");
    const listed = lines.slice(0, -1);
    expect(listed.join("\n").length).toBeLessThanOrEqual(GLOB_MAX_OUTPUT_CHARS);
    expect(listed.every((line) => line.startsWith(`${dir}/`))).toBe(true);
    expect(lines.at(-1)).toBe(
      `[… ${400 - listed.length} more files matched (400 in all); only the ${listed.length} newest are listed — narrow the pattern or path]`,
    );
  });

  test("honours .gitignore at the root and nested, negations included, and skips .git", async () => {
    tree(ws.root, {
      ".gitignore": "dist/\n*.gen.ts\n",
      ".git/config": "",
      ".git/hooks/pre-commit.ts": "",
      "a.ts": "",
      "a.gen.ts": "",
      "dist/out.ts": "",
      "pkg/.gitignore": "!keep.gen.ts\nlocal.ts\n",
      "pkg/keep.gen.ts": "",
      "pkg/other.gen.ts": "",
      "pkg/local.ts": "",
      "pkg/main.ts": "",
    });
    const result = await glob({ pattern: "**/*.ts" });
    expect(result.content.split("\n").sort()).toEqual(["a.ts", "pkg/keep.gen.ts", "pkg/main.ts"]);
    expect((await glob({ pattern: "**/*" })).content).not.toContain(".git/");
  });

  test("an ignored directory named in path or the pattern's literal base is searched", async () => {
    tree(ws.root, { ".gitignore": "dist/\n", "dist/app.js": "", "dist/sub/x.js": "" });
    expect((await glob({ pattern: "**/*.js" })).content).toBe("No files match **/*.js in .");
    expect((await glob({ pattern: "*.js", path: "dist" })).content).toBe("dist/app.js");
    expect((await glob({ pattern: "dist/sub/*.js" })).content).toBe("dist/sub/x.js");
  });

  test("no match is a plain line, not an error", async () => {
    tree(ws.root, { "a.ts": "" });
    expect(await glob({ pattern: "**/*.rs" })).toEqual({
      content: "No files match **/*.rs in .",
      is_error: false,
    });
    expect(await glob({ pattern: "missing/dir/*.rs" })).toEqual({
      content: "No files match missing/dir/*.rs in .",
      is_error: false,
    });
  });

  test("refuses paths outside the workspace, files, missing dirs and patterns that leave `path`", async () => {
    tree(ws.root, { "a.ts": "" });
    tree(ws.outside, { "b.ts": "" });
    for (const input of [
      { pattern: "*.ts", path: ws.outside },
      { pattern: "*.ts", path: ".." },
      { pattern: "*.ts", path: "a.ts" },
      { pattern: "*.ts", path: "nope" },
      { pattern: "../*.ts" },
      { pattern: `${ws.outside}/*.ts` },
      { pattern: "" },
    ]) {
      const result = await glob(input);
      expect(result.is_error).toBe(true);
    }
    expect((await glob({ pattern: "*.ts", path: ws.outside })).content).toContain("outside the workspace");
  });

  test("reaches an allowed directory", async () => {
    tree(ws.outside, { "b.ts": "" });
    const result = await glob({ pattern: "*.ts", path: ws.outside }, { ...ws.ctx, allow: [ws.outside] });
    expect(result).toEqual({ content: join(ws.outside, "b.ts"), is_error: false });
  });

  test("never follows a symlinked directory out of the workspace", async () => {
    tree(ws.outside, { "secret.ts": "" });
    symlinkSync(ws.outside, join(ws.root, "escape"));
    symlinkSync(join(ws.outside, "secret.ts"), join(ws.root, "secret-link.ts"));
    expect((await glob({ pattern: "**/*.ts" })).content).toBe("No files match **/*.ts in .");
    expect((await glob({ pattern: "escape/*.ts" })).content).toBe("No files match escape/*.ts in .");
  });

  test("a cancelled search is an error result", async () => {
    tree(ws.root, { "a.ts": "" });
    expect(await glob({ pattern: "*.ts" }, ws.cancelledCtx())).toEqual({
      content: "glob was cancelled",
      is_error: true,
    });
  });

  test("the spec describes the tool for the model", () => {
    expect(globTool.readOnly).toBe(true);
    expect(globTool.spec.name).toBe("glob");
    expect(globTool.spec.description).toContain("newest first");
    expect(globTool.spec.input_schema).toMatchObject({ required: ["pattern"] });
  });
});
