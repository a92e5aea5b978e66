/**
 * read_file on a file over its 50 MB cap: a paged read (offset/limit) reads only up to the lines asked
 * for, chunk by chunk; an unpaged read is refused with how to page. The e2e case runs the real CLI and
 * bounds the child's peak memory well under the file's size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_FILE_BYTES, readFileTool } from "../../src/tools/read-file.ts";
import { collect, Sandbox } from "../support/cli.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";

const LINES = 1_200_000;
/** `line 0000001 ` then padding to 50 bytes with the line end: 60 MB in all. */
const lineText = (n: number) => `line ${String(n).padStart(7, "0")} ${"x".repeat(36)}`;

/** Writes the big file in 6 MB pieces, so the test itself never holds it whole. */
function writeBigFile(path: string): void {
  const fd = openSync(path, "w");
  try {
    const perPiece = 120_000;
    for (let from = 1; from <= LINES; from += perPiece) {
      const piece: string[] = [];
      for (let n = from; n < from + perPiece && n <= LINES; n++) piece.push(lineText(n));
      writeSync(fd, `${piece.join("\n")}\n`);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The child's peak resident memory so far (VmHWM), read from /proc while it runs. Not its rusage
 * maxRSS: that also counts the test process's own memory, which the child started from before exec.
 */
function highWater(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // the child has exited: the last reading stands
  }
}

const dir = mkdtempSync(join(tmpdir(), "ion-read-large-"));
const big = join(dir, "big.log");
beforeAll(() => writeBigFile(big));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = () => ({ cwd: dir, allow: [], signal: new AbortController().signal }) as never;
const read = (input: Record<string, unknown>) => readFileTool.execute(input, ctx());

describe("read_file on a file over the size cap", () => {
  test("the file really is over the cap", () => {
    expect(Bun.file(big).size).toBe(LINES * 50);
    expect(Bun.file(big).size).toBeGreaterThan(MAX_FILE_BYTES);
  });

  test("offset 1000000, limit 5: those lines, and where to continue", async () => {
    const result = await read({ path: "big.log", offset: 1_000_000, limit: 5 });
    expect(result.is_error).toBe(false);
    expect(result.content.split("\n")).toEqual([
      `1000000\t${lineText(1_000_000)}`,
      `1000001\t${lineText(1_000_001)}`,
      `1000002\t${lineText(1_000_002)}`,
      `1000003\t${lineText(1_000_003)}`,
      `1000004\t${lineText(1_000_004)}`,
      "[showing lines 1000000-1000004 of a 57.2 MB file; call read_file with offset 1000005 to continue]",
    ]);
  });

  test("the last page knows the line count; past the end says how many lines there are", async () => {
    const last = await read({ path: "big.log", offset: LINES - 1 });
    expect(last.content).toBe(`1199999\t${lineText(LINES - 1)}\n1200000\t${lineText(LINES)}`);
    const past = await read({ path: "big.log", offset: LINES + 1 });
    expect(past).toEqual({
      is_error: true,
      content: `offset ${LINES + 1} is past the end of big.log, which has ${LINES} lines`,
    });
  });

  test("a limit alone pages from the start; no offset or limit is refused with how to page", async () => {
    const first = await read({ path: "big.log", limit: 2 });
    expect(first.content.split("\n")[0]).toBe(`     1\t${lineText(1)}`);
    const whole = await read({ path: "big.log" });
    expect(whole.is_error).toBe(true);
    expect(whole.content).toContain("too large to read whole");
    expect(whole.content).toContain("offset and limit");
  });

  test("a binary file over the cap is still refused by its first bytes", async () => {
    const path = join(dir, "blob.bin");
    const fd = openSync(path, "w");
    writeSync(fd, new Uint8Array([0, 1, 2, 3]));
    writeSync(fd, new Uint8Array(1), 0, 1, MAX_FILE_BYTES + 10); // sparse: no 50 MB written
    closeSync(fd);
    const result = await read({ path: "blob.bin", offset: 1, limit: 1 });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("is a binary file");
  });
});

describe("ion run: the model pages through a 57 MB log", () => {
  const server = useFakeLLM();

  test("the tool result holds the lines asked for, and ion's memory stays far below the file", async () => {
    using box = new Sandbox();
    writeBigFile(join(box.workspace, "big.log"));
    server.enqueueReply("openai", {
      toolCalls: [{ name: "read_file", input: { path: "big.log", offset: 1_000_000, limit: 5 } }],
    });
    server.enqueueReply("openai", { text: "found it" });
    const before = server.requests.length;
    const child = box.spawn(["run", "-m", "openai/gpt-4o-mini", "-o", "json", "find line 1000000"], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test-large-file-0000000000000001" },
    });
    let peak = 0;
    const poll = setInterval(() => {
      peak = Math.max(peak, highWater(child.pid));
    }, 5);
    const run = await collect(child);
    clearInterval(poll);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const sent = JSON.stringify(server.requests[before + 1]?.body);
    expect(sent).toContain(`1000000\\t${lineText(1_000_000)}`);
    expect(sent).toContain(`1000004\\t${lineText(1_000_004)}`);
    expect(sent).not.toContain(lineText(1_000_005));
    // ion alone peaks near 80 MB; loading the file whole adds its 57 MB as bytes and again as a
    // string, and more for the split lines. Reading by chunks stays near ion's own footprint.
    if (process.platform === "linux") {
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(150 * 1024 * 1024);
    }
  }, 30_000);
});
