import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IonError } from "../../src/errors.ts";
import { acquireLock, isProcessRunning, parseOwner, processStart } from "../../src/history/lock.ts";
import { SessionStore } from "../../src/history/store.ts";
import { LineReader, SUPPORT_DIR, userText, useTempDirs } from "./support/fixtures.ts";

const tempDir = useTempDirs("ion-lock-");
const onLinux = process.platform === "linux";

/** A child that opens the session and holds it until its stdin ends. */
function holder(dir: string, id: string) {
  const child = Bun.spawn([process.execPath, join(SUPPORT_DIR, "hold-session.ts"), dir, id], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  return { child, out: new LineReader(child.stdout) };
}

async function newSession(): Promise<{ store: SessionStore; id: string }> {
  const store = new SessionStore(join(tempDir(), "sessions"));
  const writer = await store.create({ cwd: "/w", provider: "p", model: "m", title: "t" });
  await writer.append([userText("hello")]);
  await writer.close();
  return { store, id: writer.id };
}

/** A pid that is certainly not running: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

describe("two ion processes on one session", () => {
  test("a live holder refuses others with its pid; after a clean release the session opens again", async () => {
    const { store, id } = await newSession();
    const first = holder(store.dir, id);
    try {
      await first.out.next((l) => l.startsWith("holding"));
      expect(readFileSync(join(store.dir, `${id}.lock`), "utf8")).toStartWith(`${first.child.pid}`);

      const err = await store.openForAppend(id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IonError);
      expect((err as IonError).code).toBe("io");
      expect((err as IonError).message).toBe(
        `session ${id} is in use by another ion process (pid ${first.child.pid})`,
      );

      const second = holder(store.dir, id);
      expect(await second.child.exited).toBe(3);
      await second.out.done;
      expect(second.out.lines).toEqual([
        `refused session ${id} is in use by another ion process (pid ${first.child.pid})`,
      ]);

      first.child.stdin.end();
      await first.out.next((l) => l === "released");
      expect(await first.child.exited).toBe(0);
      expect(existsSync(join(store.dir, `${id}.lock`))).toBe(false);
      const { writer } = await store.openForAppend(id);
      await writer.close();
    } finally {
      first.child.kill("SIGKILL");
    }
  });

  test("the lock of a process killed with SIGKILL is stale and is taken over", async () => {
    const { store, id } = await newSession();
    const first = holder(store.dir, id);
    try {
      await first.out.next((l) => l.startsWith("holding"));
    } finally {
      first.child.kill("SIGKILL");
    }
    await first.child.exited;
    const lock = join(store.dir, `${id}.lock`);
    expect(readFileSync(lock, "utf8")).toStartWith(`${first.child.pid}`);
    const { writer, loaded } = await store.openForAppend(id);
    expect(loaded.entries).toHaveLength(1);
    expect(readFileSync(lock, "utf8")).toStartWith(`${process.pid}`);
    await writer.append([userText("taken over")]);
    await writer.close();
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(store.dir).filter((n) => n.includes(".stale-"))).toEqual([]);
  });
});

describe("stale locks", () => {
  test("a lock naming a pid that is not running is taken over", async () => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    writeFileSync(path, `${await deadPid()}\n`);
    const lock = await acquireLock(path, "s");
    expect(parseOwner(readFileSync(path, "utf8"))?.pid).toBe(process.pid);
    lock.release();
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  test("unreadable lock contents are stale; an unfinished one (no newline) after a short wait", async () => {
    const dir = tempDir();
    for (const content of ["garbage\n", "-5\n", "", "123"]) {
      const path = join(dir, "s.lock");
      writeFileSync(path, content);
      const lock = await acquireLock(path, "s");
      lock.release();
      expect(existsSync(path)).toBe(false);
    }
  });

  test("a live process holding the lock is respected, and release never removes someone else's lock", async () => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    const sleeper = Bun.spawn(["sleep", "30"]);
    try {
      writeFileSync(path, `${sleeper.pid}\n`);
      await expect(acquireLock(path, "s")).rejects.toThrow(
        `session s is in use by another ion process (pid ${sleeper.pid})`,
      );
      expect(readFileSync(path, "utf8")).toBe(`${sleeper.pid}\n`);
    } finally {
      sleeper.kill("SIGKILL");
    }
    await sleeper.exited;
    const lock = await acquireLock(path, "s");
    writeFileSync(path, "12345 1\n"); // as if another process had taken it over
    lock.release();
    expect(readFileSync(path, "utf8")).toBe("12345 1\n");
  });

  test.if(onLinux)("a pid reused by another process is told apart by its start time", async () => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    const start = processStart(process.pid);
    expect(start).toMatch(/^\d+$/);
    writeFileSync(path, `${process.pid} ${start}\n`);
    await expect(acquireLock(path, "s")).rejects.toThrow("is in use");
    writeFileSync(path, `${process.pid} 1\n`);
    const lock = await acquireLock(path, "s");
    lock.release();
  });

  test.if(onLinux)("a zombie (exited, not reaped) is not running, and its lock is taken over", async () => {
    // `sleep 30` becomes the parent of a short-lived `sleep` and never reaps it: a zombie.
    const parent = Bun.spawn(["sh", "-c", "sleep 0.05 & echo $!; exec sleep 30"], { stdout: "pipe" });
    try {
      const out = new LineReader(parent.stdout);
      const zombie = Number(await out.next((l) => /^\d+$/.test(l)));
      const deadline = Date.now() + 5_000;
      const state = () => {
        const stat = readFileSync(`/proc/${zombie}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      };
      while (state() !== "Z" && Date.now() < deadline) await Bun.sleep(10);
      expect(state()).toBe("Z");
      expect(isProcessRunning(zombie)).toBe(false);

      const path = join(tempDir(), "s.lock");
      writeFileSync(path, `${zombie}\n`);
      const lock = await acquireLock(path, "s");
      expect(parseOwner(readFileSync(path, "utf8"))?.pid).toBe(process.pid);
      lock.release();
    } finally {
      parent.kill("SIGKILL");
    }
    await parent.exited;
  });

  test("isProcessRunning: this process yes; a reaped child and nonsense pids no", async () => {
    expect(isProcessRunning(process.pid)).toBe(true);
    expect(isProcessRunning(await deadPid())).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isProcessRunning(pid)).toBe(false);
  });
});

describe("exit", () => {
  test("a process that exits while holding a lock (a forced exit after a signal) leaves no lock file", async () => {
    const path = join(tempDir(), "s.lock");
    const lockModule = join(import.meta.dir, "../../src/history/lock.ts");
    const script = `const { acquireLock } = await import(${JSON.stringify(lockModule)});
await acquireLock(${JSON.stringify(path)}, "s");
process.exit(3);`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "inherit", stderr: "inherit" });
    expect(await child.exited).toBe(3);
    expect(existsSync(path)).toBe(false);
  });
});
