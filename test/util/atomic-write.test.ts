import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AtomicWriteOptions,
  writeFileAtomic,
  writeFileAtomicSync,
} from "../../src/util/atomic-write.ts";

const MODULE = join(import.meta.dir, "../../src/util/atomic-write.ts");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ion-atomic-write-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Runs `body` with the process's umask set to `mask`, restoring it after. */
async function withUmask<T>(mask: number, body: () => T | Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await body();
  } finally {
    process.umask(before);
  }
}

type Write = (path: string, data: string | Uint8Array, options?: AtomicWriteOptions) => Promise<void>;

const variants: [string, Write][] = [
  ["writeFileAtomic", writeFileAtomic],
  ["writeFileAtomicSync", async (path, data, options) => writeFileAtomicSync(path, data, options)],
];

for (const [name, write] of variants) {
  describe(name, () => {
    test("creates a file with the content, text or bytes, and leaves nothing else", async () => {
      await write(join(dir, "a.txt"), "hello\n");
      await write(join(dir, "b.bin"), new Uint8Array([0, 1, 2, 255]));
      expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("hello\n");
      expect([...readFileSync(join(dir, "b.bin"))]).toEqual([0, 1, 2, 255]);
      expect(readdirSync(dir).sort()).toEqual(["a.txt", "b.bin"]);
    });

    test("replaces an existing file's content and keeps its permission bits", async () => {
      const file = join(dir, "run.sh");
      writeFileSync(file, "old content that is longer than the new\n");
      chmodSync(file, 0o751);
      await write(file, "new\n");
      expect(readFileSync(file, "utf8")).toBe("new\n");
      expect(modeOf(file)).toBe(0o751);
      expect(readdirSync(dir)).toEqual(["run.sh"]);
    });

    test("a new file without a mode gets the usual mode for new files (the umask applies)", async () => {
      await withUmask(0o027, async () => {
        await write(join(dir, "plain.txt"), "x");
        writeFileSync(join(dir, "reference.txt"), "x");
      });
      expect(modeOf(join(dir, "plain.txt"))).toBe(0o640);
      expect(modeOf(join(dir, "plain.txt"))).toBe(modeOf(join(dir, "reference.txt")));
    });

    test("a mode is set exactly: 0600 for secrets whatever the umask or the replaced file's bits", async () => {
      const keys = join(dir, "keys.json");
      writeFileSync(keys, "{}");
      chmodSync(keys, 0o644);
      await withUmask(0, () => write(keys, '{"k":"test-key-123"}', { mode: 0o600 }));
      expect(modeOf(keys)).toBe(0o600);
      // The umask cannot take bits away from a mode given either.
      await withUmask(0o077, () => write(join(dir, "shared.txt"), "x", { mode: 0o640 }));
      expect(modeOf(join(dir, "shared.txt"))).toBe(0o640);
    });

    test("every durability writes the same content", async () => {
      for (const durability of ["none", "file", "directory"] as const) {
        await write(join(dir, `${durability}.txt`), durability, { durability });
        expect(readFileSync(join(dir, `${durability}.txt`), "utf8")).toBe(durability);
      }
      expect(readdirSync(dir)).toHaveLength(3);
    });

    test("a rename that fails leaves the target as it was and no temp file", async () => {
      // Renaming a file over a non-empty directory fails after the temp file was written.
      mkdirSync(join(dir, "busy"));
      writeFileSync(join(dir, "busy", "inside.txt"), "keep");
      await expect(write(join(dir, "busy"), "data")).rejects.toThrow();
      expect(readdirSync(dir)).toEqual(["busy"]);
      expect(readFileSync(join(dir, "busy", "inside.txt"), "utf8")).toBe("keep");
    });

    test("a missing directory is the error, with its errno code, and nothing is made", async () => {
      const err = await write(join(dir, "no", "such.txt"), "x").catch((e: unknown) => e);
      expect((err as NodeJS.ErrnoException).code).toBe("ENOENT");
      expect(readdirSync(dir)).toEqual([]);
    });

    test("a named temp file is used, and one that exists already is not touched", async () => {
      const file = join(dir, "session.zst");
      writeFileSync(file, "old");
      const temp = join(dir, "session.zst.1.repack.tmp");
      writeFileSync(temp, "someone else's");
      const err = await write(file, "new", { temp }).catch((e: unknown) => e);
      expect((err as NodeJS.ErrnoException).code).toBe("EEXIST");
      expect(readFileSync(file, "utf8")).toBe("old");
      expect(readFileSync(temp, "utf8")).toBe("someone else's");
      rmSync(temp);
      await write(file, "new", { temp });
      expect(readFileSync(file, "utf8")).toBe("new");
      expect(readdirSync(dir)).toEqual(["session.zst"]);
    });

    test("a temp file outside the target's directory is refused", async () => {
      mkdirSync(join(dir, "other"));
      const temp = join(dir, "other", "x.tmp");
      await expect(write(join(dir, "x"), "data", { temp })).rejects.toThrow("is not in the directory");
      expect(readdirSync(dir)).toEqual(["other"]);
      expect(readdirSync(join(dir, "other"))).toEqual([]);
    });
  });
}

describe("a write that fails part-way (the file size limit is hit)", () => {
  for (const variant of ["async", "sync"]) {
    test(`${variant}: the old file is intact and the temp file is gone`, async () => {
      const file = join(dir, "target.txt");
      writeFileSync(file, "the old content\n");
      const script = join(dir, "write.ts");
      writeFileSync(
        script,
        [
          `import { writeFileAtomic, writeFileAtomicSync } from ${JSON.stringify(MODULE)};`,
          `const big = "x".repeat(200_000);`,
          "try {",
          variant === "sync"
            ? `  writeFileAtomicSync(${JSON.stringify(file)}, big);`
            : `  await writeFileAtomic(${JSON.stringify(file)}, big);`,
          `  console.log("written");`,
          "} catch (err) {",
          "  console.log(err.code);",
          "}",
        ].join("\n"),
      );
      // RLIMIT_FSIZE of 10 kB: a write past it fails with EFBIG (Bun ignores SIGXFSZ).
      const child = Bun.spawnSync(
        ["/bin/sh", "-c", 'ulimit -f 10 && exec "$0" "$1"', process.execPath, script],
        {
          cwd: dir,
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      expect(child.stdout.toString().trim()).toBe("EFBIG");
      expect(readFileSync(file, "utf8")).toBe("the old content\n");
      expect(readdirSync(dir).sort()).toEqual(["target.txt", "write.ts"]);
    });
  }
});
