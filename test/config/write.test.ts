import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atomicWriteJson, writeKey } from "../../src/config/load.ts";
import { IonError } from "../../src/errors.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "ion-write-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe("writeKey", () => {
  test("creates keys.json 0600 in a new 0700 dir, then updates it", async () => {
    const dir = join(root, "config", "ion");
    await writeKey(dir, "openai", "sk-test-write-000000001111");
    const file = join(dir, "keys.json");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ openai: "sk-test-write-000000001111" });
    expect(await mode(file)).toBe(0o600);
    expect(await mode(dir)).toBe(0o700);

    await writeKey(dir, "anthropic", "sk-ant-test-000000002222");
    await writeKey(dir, "openai", "sk-test-write-000000003333");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      openai: "sk-test-write-000000003333",
      anthropic: "sk-ant-test-000000002222",
    });
    expect(await mode(file)).toBe(0o600);
    expect(await readdir(dir)).toEqual(["keys.json"]); // no temp files left behind
  });

  test("tightens an existing keys.json to 0600", async () => {
    await writeFile(join(root, "keys.json"), "{}", { mode: 0o644 });
    await writeKey(root, "groq", "gsk-test-000000004444");
    expect(await mode(join(root, "keys.json"))).toBe(0o600);
  });

  test("refuses to overwrite a malformed keys.json", async () => {
    const file = join(root, "keys.json");
    await writeFile(file, "{oops", { mode: 0o600 });
    const err = await writeKey(root, "openai", "sk-test-000000005555").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IonError);
    expect((err as IonError).code).toBe("config");
    expect(await readFile(file, "utf8")).toBe("{oops");
  });
});

describe("atomicWriteJson", () => {
  test("writes pretty JSON with a newline and keeps an existing file's mode", async () => {
    const file = join(root, "nested", "config.json");
    await atomicWriteJson(file, { model: "openai/gpt-4o" });
    expect(await readFile(file, "utf8")).toBe('{\n  "model": "openai/gpt-4o"\n}\n');
    await chmod(file, 0o640);
    await atomicWriteJson(file, { a: 1 });
    expect(await mode(file)).toBe(0o640);
    await atomicWriteJson(file, { a: 2 }, 0o600);
    expect(await mode(file)).toBe(0o600);
  });

  test("a new file is 0600 in a new 0700 directory", async () => {
    const dir = join(root, "fresh", "ion");
    await atomicWriteJson(join(dir, "config.json"), { model: "openai/gpt-4o" });
    expect(await mode(join(dir, "config.json"))).toBe(0o600);
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(root, "fresh"))).toBe(0o700);
  });

  test("an existing file loses group and other access once it holds a secret", async () => {
    const file = join(root, "config.json");
    await writeFile(file, "{}", { mode: 0o644 });
    await atomicWriteJson(file, { providers: { gw: { headers: { "X-Title": "ion" } } } });
    expect(await mode(file)).toBe(0o644);
    await atomicWriteJson(file, { providers: { gw: { headers: { "x-gateway-key": "gw-secret-0000" } } } });
    expect(await mode(file)).toBe(0o600);
  });

  test("a failed write leaves the target and no temp file", async () => {
    const dir = join(root, "d");
    await mkdir(dir);
    const target = join(dir, "sub");
    await mkdir(target); // renaming a file over a directory fails
    const err = await atomicWriteJson(target, { a: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IonError);
    expect((err as IonError).code).toBe("io");
    expect(await readdir(dir)).toEqual(["sub"]);
  });
});
