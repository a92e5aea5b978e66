import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { editFileTool } from "../../src/tools/edit-file.ts";
import { globTool } from "../../src/tools/glob.ts";
import { grepTool } from "../../src/tools/grep.ts";
import { builtinTools, skillTool } from "../../src/tools/index.ts";
import { listFilesTool } from "../../src/tools/list-files.ts";
import { readFileTool } from "../../src/tools/read-file.ts";
import { skillTool as eagerSkillTool } from "../../src/tools/skill.ts";
import { symbolsTool } from "../../src/tools/symbols.ts";
import { webFetchTool } from "../../src/tools/web-fetch.ts";
import { writeFileTool } from "../../src/tools/write-file.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("the offered specs are exactly the tools' own, in order, with the same read-only flags", () => {
  const own = [
    readFileTool,
    listFilesTool,
    globTool,
    grepTool,
    symbolsTool,
    editFileTool,
    writeFileTool,
    bashTool,
    webFetchTool,
  ];
  const offered = builtinTools();
  expect(offered.map((t) => t.spec)).toEqual(own.map((t) => t.spec));
  expect(offered.map((t) => t.readOnly)).toEqual(own.map((t) => t.readOnly));
  expect(skillTool([]).spec).toEqual(eagerSkillTool([]).spec);
  expect(skillTool([]).readOnly).toBe(true);
});

test("a lazily loaded tool runs, validates its arguments, and keeps working after its first call", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "ion-tools-index-"));
  dirs.push(cwd);
  writeFileSync(join(cwd, "a.txt"), "alpha\nbeta\n");
  const ctx = { cwd, allow: [], signal: new AbortController().signal, callId: "call-1", sessionId: "s" };
  const read = builtinTools().find((t) => t.spec.name === "read_file")!;
  expect(await read.execute({ path: "a.txt" }, ctx)).toEqual({
    content: "     1\talpha\n     2\tbeta",
    is_error: false,
  });
  const invalid = await read.execute({ path: 42 }, ctx);
  expect(invalid.is_error).toBe(true);
  expect(invalid.content).toContain("invalid arguments for read_file");
  expect((await read.execute({ path: "a.txt", offset: 2 }, ctx)).content).toBe("     2\tbeta");
});
