import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTrusted, revokeProject, trustFile, trustProject } from "../../src/config/trust-store.ts";
import { IonError } from "../../src/errors.ts";
import { TempProject } from "./trust-temp-project.ts";

describe("the trusted-projects store", () => {
  test("lives in the data dir; missing, it trusts nothing", async () => {
    using p = new TempProject();
    const file = trustFile(p.env);
    expect(file).toBe(join(p.env.ION_DATA_DIR!, "trusted-projects.json"));
    expect(await readTrusted(file)).toEqual({});
  });

  test("trust, then revoke: the file holds the real path, the hash and when, private to the user", async () => {
    using p = new TempProject();
    const file = trustFile(p.env);
    const when = new Date("2026-11-30T12:00:00.000Z");
    await trustProject(file, p.root, "a".repeat(64), when);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: 1,
      projects: { [p.root]: { hash: "a".repeat(64), trusted_at: "2026-11-30T12:00:00.000Z" } },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Trusting again replaces the hash (what the project runs now).
    await trustProject(file, p.root, "b".repeat(64), when);
    expect((await readTrusted(file))[p.root]?.hash).toBe("b".repeat(64));

    expect(await revokeProject(file, p.root)).toBe(true);
    expect(await readTrusted(file)).toEqual({});
    expect(await revokeProject(file, p.root)).toBe(false);
  });

  test("parallel writers keep each other's entries", async () => {
    using p = new TempProject();
    const file = trustFile(p.env);
    const roots = Array.from({ length: 12 }, (_, i) => join(p.base, `project-${i}`));
    await Promise.all(roots.map((root, i) => trustProject(file, root, String(i).padStart(64, "0"))));
    expect(Object.keys(await readTrusted(file)).sort()).toEqual([...roots].sort());
    // Separate processes too: the file lock is what keeps them apart.
    const script = `
      const { trustProject } = await import(${JSON.stringify(join(import.meta.dir, "../../src/config/trust-store.ts"))});
      await trustProject(process.argv.at(-2), process.argv.at(-1), "c".repeat(64));`;
    const others = Array.from({ length: 4 }, (_, i) => join(p.base, `other-${i}`));
    const children = others.map((root) =>
      Bun.spawn([process.execPath, "-e", script, file, root], { stdout: "inherit", stderr: "inherit" }),
    );
    expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0, 0, 0]);
    expect(Object.keys(await readTrusted(file)).sort()).toEqual([...roots, ...others].sort());
  });

  test("a file that is not ion's store is an error naming it, and is never rewritten", async () => {
    using p = new TempProject();
    const file = trustFile(p.env);
    p.write("../data/trusted-projects.json", { projects: [] });
    const read = await readTrusted(file).catch((err: unknown) => err);
    expect(read).toBeInstanceOf(IonError);
    expect((read as IonError).message).toBe(`${file}: not a list of trusted projects`);
    expect((read as IonError).hint).toBe(
      `remove it to start again (every project is then untrusted): rm ${file}`,
    );
    const write = await trustProject(file, p.root, "a".repeat(64)).catch((err: unknown) => err);
    expect(write).toBeInstanceOf(IonError);
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify({ projects: [] }, null, 2));

    writeFileSync(file, "{ not json");
    const invalid = await readTrusted(file).catch((err: unknown) => err);
    expect((invalid as IonError).message).toStartWith(`${file}: invalid JSON`);
  });
});
