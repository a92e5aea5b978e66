import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildUserContent, type PromptSources } from "../../src/commands/run-input.ts";
import { IonError } from "../../src/errors.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ion-run-input-"));
  await writeFile(join(dir, "notes.txt"), "first line\nsecond line\n");
  await writeFile(join(dir, "no-newline.md"), "# Title");
  await writeFile(join(dir, "unicode.txt"), "héllo — 世界\n");
  await writeFile(join(dir, "image.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a]));
  await mkdir(join(dir, "sub"));
  await writeFile(join(dir, "sub", "deep.txt"), "deep\n");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sources(overrides: Partial<PromptSources> & { stdin?: string | Uint8Array } = {}) {
  let reads = 0;
  const { stdin, ...rest } = overrides;
  const input: PromptSources = {
    prompt: "",
    files: [],
    cwd: dir,
    stdinIsTTY: stdin === undefined,
    readStdin: async () => {
      reads++;
      return typeof stdin === "string" ? new TextEncoder().encode(stdin) : (stdin ?? new Uint8Array());
    },
    ...rest,
  };
  return { input, reads: () => reads };
}

async function ionError(promise: Promise<unknown>): Promise<IonError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(IonError);
    return err as IonError;
  }
  throw new Error("expected an IonError");
}

describe("buildUserContent", () => {
  test("prompt only: one text block, trimmed; a terminal stdin is never read", async () => {
    const s = sources({ prompt: "  what is 2+2?  " });
    expect(await buildUserContent(s.input)).toEqual([{ type: "text", text: "what is 2+2?" }]);
    expect(s.reads()).toBe(0);
  });

  test('"-" reads the prompt from stdin', async () => {
    const s = sources({ prompt: "-", stdin: "summarize this\n" });
    expect(await buildUserContent(s.input)).toEqual([{ type: "text", text: "summarize this" }]);
    expect(s.reads()).toBe(1);
  });

  test("no prompt and piped stdin: stdin is the prompt", async () => {
    const s = sources({ stdin: "from a pipe\n" });
    expect(await buildUserContent(s.input)).toEqual([{ type: "text", text: "from a pipe" }]);
  });

  test("prompt and piped stdin: stdin is attached first as context", async () => {
    const s = sources({ prompt: "explain", stdin: "line 1\nline 2\n" });
    expect(await buildUserContent(s.input)).toEqual([
      { type: "text", text: "<stdin>\nline 1\nline 2\n</stdin>" },
      { type: "text", text: "explain" },
    ]);
  });

  test("prompt and an empty pipe: nothing is attached", async () => {
    const s = sources({ prompt: "explain", stdin: "  \n" });
    expect(await buildUserContent(s.input)).toEqual([{ type: "text", text: "explain" }]);
  });

  test("-f files are attached before the prompt, in order, after stdin", async () => {
    const s = sources({
      prompt: "compare",
      stdin: "piped",
      files: ["notes.txt", "no-newline.md", join(dir, "sub", "deep.txt"), "unicode.txt"],
    });
    expect(await buildUserContent(s.input)).toEqual([
      { type: "text", text: "<stdin>\npiped\n</stdin>" },
      { type: "text", text: '<file path="notes.txt">\nfirst line\nsecond line\n</file>' },
      { type: "text", text: '<file path="no-newline.md">\n# Title\n</file>' },
      { type: "text", text: `<file path="${join(dir, "sub", "deep.txt")}">\ndeep\n</file>` },
      { type: "text", text: '<file path="unicode.txt">\nhéllo — 世界\n</file>' },
      { type: "text", text: "compare" },
    ]);
  });

  test("files resolve against cwd, not the process directory", async () => {
    const s = sources({ prompt: "read", files: ["deep.txt"], cwd: join(dir, "sub") });
    expect((await buildUserContent(s.input))[0]).toEqual({
      type: "text",
      text: '<file path="deep.txt">\ndeep\n</file>',
    });
  });

  test("a binary file is refused", async () => {
    const err = await ionError(buildUserContent(sources({ prompt: "look", files: ["image.png"] }).input));
    expect(err.code).toBe("io");
    expect(err.message).toContain("image.png");
    expect(err.message).toContain("binary");
  });

  test("a file of invalid UTF-8 is refused as binary, even past the first 8 KB", async () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode("a".repeat(9000)), 0xe9, 0x0a]);
    await writeFile(join(dir, "latin1.txt"), latin1);
    const err = await ionError(buildUserContent(sources({ prompt: "look", files: ["latin1.txt"] }).input));
    expect(err.code).toBe("io");
    expect(err.message).toBe(
      "cannot attach latin1.txt: it is a binary file (NUL bytes or invalid UTF-8), not text",
    );
  });

  test("binary stdin is refused, as the prompt and as context alike", async () => {
    for (const stdin of [
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00]),
      new Uint8Array([0x68, 0x69, 0xff]),
    ]) {
      for (const prompt of ["", "summarise"]) {
        const err = await ionError(buildUserContent(sources({ prompt, stdin }).input));
        expect(err.code).toBe("io");
        expect(err.message).toBe(
          "cannot read stdin: it is binary data (NUL bytes or invalid UTF-8), not text",
        );
      }
    }
  });

  test("a missing file is an io error naming it", async () => {
    const err = await ionError(buildUserContent(sources({ prompt: "look", files: ["missing.txt"] }).input));
    expect(err.code).toBe("io");
    expect(err.message).toContain("missing.txt");
    expect(err.message).toContain("no such file");
  });

  test("a directory is an io error that says so", async () => {
    const err = await ionError(buildUserContent(sources({ prompt: "look", files: ["sub"] }).input));
    expect(err.code).toBe("io");
    expect(err.message).toContain("directory");
  });

  test("no prompt anywhere is a usage error with a hint", async () => {
    const cases = [
      sources({ prompt: "" }),
      sources({ prompt: "   " }),
      sources({ stdin: "" }),
      sources({ prompt: "-", stdin: " \n\n" }),
      sources({ prompt: "-" }),
      sources({ prompt: "", files: ["notes.txt"] }),
    ];
    for (const s of cases) {
      const err = await ionError(buildUserContent(s.input));
      expect(err.code).toBe("usage");
      expect(err.hint).toContain("ion run");
    }
  });
});
