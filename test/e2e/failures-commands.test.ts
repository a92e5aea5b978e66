/**
 * End to end: the commands around the agent (sessions, reset, keys, paths) given what a real machine
 * hands them — files ion cannot read, directories where files belong, read-only folders, stdin that is
 * a directory, no home directory. Each is one clear `ion:` line and the documented status, never a
 * stack trace or the runtime's raw error text, and nothing half-done.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "../../src/history/store.ts";
import { collect, type IonRun, ionCommand, Sandbox } from "../support/cli.ts";

const KEY = "sk-test-commands-failures-000000000abcd";
const IS_ROOT = process.getuid?.() === 0;

/** A saved session of the sandbox's workspace, written through the real store. */
async function makeSession(box: Sandbox, title: string): Promise<string> {
  const writer = await SessionStore.forDataDir(box.dataDir).create({
    cwd: realpathSync(box.workspace),
    provider: "openai",
    model: "gpt-4o",
    title,
  });
  await writer.append([
    { type: "message", message: { role: "user", content: [{ type: "text", text: title }] } },
  ]);
  await writer.close();
  return writer.id;
}

function sessionsDir(box: Sandbox): string {
  return join(box.dataDir, "sessions");
}

/** What no message may contain: a stack frame, or the runtime's wording with the path appended. */
function expectClean(run: IonRun): void {
  expect(run.stderr).not.toMatch(/\n\s+at |\bscandir '|\bopen '|rm returned|uv_os_homedir/);
}

/**
 * Makes `dir` refuse new files for the length of `fn`: chmod for a normal user; for root, whom mode
 * bits do not stop, the immutable attribute (where the file system has one). Skipped (returns false)
 * when neither works.
 */
async function readOnly(dir: string, fn: () => Promise<void>): Promise<boolean> {
  if (!IS_ROOT) {
    chmodSync(dir, 0o500);
    try {
      await fn();
    } finally {
      chmodSync(dir, 0o700);
    }
    return true;
  }
  if (Bun.spawnSync(["chattr", "+i", dir], { stderr: "pipe" }).exitCode !== 0) return false;
  try {
    await fn();
  } finally {
    Bun.spawnSync(["chattr", "-i", dir]);
  }
  return true;
}

/** Runs ion under bash with stdin redirected from `stdinPath`. */
async function withStdinFrom(box: Sandbox, stdinPath: string, args: string[]): Promise<IonRun> {
  const child = Bun.spawn(["bash", "-c", 'exec "$@" < "$0"', stdinPath, ...ionCommand(), ...args], {
    cwd: box.workspace,
    env: box.env(),
    stdout: "pipe",
    stderr: "pipe",
  });
  return collect(child);
}

describe("session files ion cannot read", () => {
  test("a directory where a session file belongs is skipped with a warning; the others are listed", async () => {
    using box = new Sandbox();
    const good = await makeSession(box, "A good session");
    const bad = "019aa6b2-4c1e-7c39-9d0a-3f1f7a0c2b14";
    mkdirSync(join(sessionsDir(box), `${bad}.jsonl.zst`));
    const list = await box.run(["sessions", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("A good session");
    expect(list.stderr).toMatch(
      new RegExp(`^ion: warning: skipped session ${bad}: cannot read \\S+ \\(EISDIR: [^)]+\\)\\n$`),
    );
    expectClean(list);

    const rm = await box.run(["sessions", "rm", bad]);
    expect(rm.code).toBe(1);
    expect(rm.stderr).toMatch(/^ion: cannot remove \S+\.jsonl\.zst \(EISDIR: is a directory\)\n$/);
    expectClean(rm);

    // When nothing is readable, the list says so rather than "no sessions yet".
    await box.run(["sessions", "rm", good]);
    const empty = await box.run(["sessions", "list", "--all"]);
    expect(empty.stderr).toEndWith("no readable sessions (1 skipped)\n");
  });

  test("a read-only sessions folder: rm and reset say which file could not be made, and delete nothing", async () => {
    using box = new Sandbox();
    const id = await makeSession(box, "Keep me");
    const ran = await readOnly(sessionsDir(box), async () => {
      const rm = await box.run(["sessions", "rm", id]);
      expect(rm.code).toBe(1);
      expect(rm.stderr).toMatch(
        /^ion: cannot create the session lock \S+\.lock \((EACCES|EPERM): [^)]+\)\n$/,
      );
      const reset = await box.run(["reset", "-y"]);
      expect(reset.code).toBe(1);
      expect(reset.stderr).toMatch(/^ion: nothing deleted: cannot create the session lock \S+ \([^)]+\)\n$/);
      expect(reset.stderr).not.toContain("let it finish"); // no other ion holds it
    });
    if (ran) expect(readdirSync(sessionsDir(box))).toContain(`${id}.jsonl.zst`);
  });

  test("ion reset when the sessions folder is a file: one line, nothing deleted", async () => {
    using box = new Sandbox();
    writeFileSync(sessionsDir(box), "not a folder");
    const reset = await box.run(["reset", "-y"]);
    expect(reset.code).toBe(1);
    expect(reset.stderr).toMatch(
      /^ion: nothing deleted: cannot list \S+sessions \(ENOTDIR: not a directory\)\n$/,
    );
    expect(existsSync(sessionsDir(box))).toBe(true);
  });
});

describe("ion sessions export -o", () => {
  test("a directory, an empty name or a path through a file: one line each, no temp file left", async () => {
    using box = new Sandbox();
    const id = await makeSession(box, "Export me");
    const dir = await box.run(["sessions", "export", id, "-o", "."]);
    expect(dir.code).toBe(64);
    expect(dir.stderr).toMatch(
      /^ion: cannot export to \S+: it is a directory\n {2}hint: name a file, e\.g\. -o \S+\.md\n$/,
    );
    const empty = await box.run(["sessions", "export", id, "-o", ""]);
    expect(empty.code).toBe(64);
    expect(empty.stderr).toStartWith("ion: -o needs a file name\n");
    writeFileSync(join(box.workspace, "notes"), "a file");
    const through = await box.run(["sessions", "export", id, "-o", "notes/chat.md"]);
    expect(through.code).toBe(1);
    expect(through.stderr).toMatch(/^ion: could not write \S+notes\/chat\.md: ENOTDIR: not a directory\n$/);
    for (const run of [dir, empty, through]) expectClean(run);
    expect(readdirSync(box.workspace)).toEqual(["notes"]);
  });
});

describe("API keys from stdin", () => {
  test("stdin that is a directory: one line naming stdin, nothing saved", async () => {
    using box = new Sandbox();
    for (const args of [
      ["providers", "login", "openai"],
      ["config", "set", "providers.openai.api_key", "-"],
    ]) {
      const run = await withStdinFrom(box, box.root, args);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({
        args,
        code: 1,
        stderr: "ion: cannot read the key for openai from stdin (EISDIR)\n",
      });
    }
    expect(existsSync(join(box.configDir, "keys.json"))).toBe(false);
  });

  test("a key with spaces (`Bearer …`) is refused the same way by login and config set", async () => {
    using box = new Sandbox();
    for (const args of [
      ["providers", "login", "openai"],
      ["config", "set", "providers.openai.api_key", "-"],
    ]) {
      const run = await box.run(args, { stdin: `Bearer ${KEY}\n` });
      expect(run.code).toBe(1);
      expect(run.stderr).toStartWith("ion: an API key has no spaces or line breaks; nothing saved\n");
      expect(run.stderr).not.toContain(KEY);
    }
    expect(existsSync(join(box.configDir, "keys.json"))).toBe(false);
  });
});

const SETPRIV = Bun.which("setpriv");
const STRANGER = ["--reuid=54321", "--regid=54321", "--clear-groups"];
/** Whether a user with no account can run ion from here at all (a checkout under a private home cannot). */
const strangerCanRun = (): boolean => {
  const command = ionCommand();
  const check = ["sh", "-c", 'test -x "$1" && test -r "$2"', "sh", command[0]!, command.at(-1)!];
  return Bun.spawnSync([SETPRIV!, ...STRANGER, ...check]).exitCode === 0;
};

describe.if(IS_ROOT && SETPRIV !== null && strangerCanRun())("no home directory", () => {
  test("HOME unset for a user the system does not know: say what to set", async () => {
    using box = new Sandbox();
    chmodSync(box.root, 0o755);
    // A uid with no entry in the password database, as under `docker run --user 54321`.
    const child = Bun.spawn([SETPRIV!, ...STRANGER, ...ionCommand(), "providers"], {
      cwd: box.workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "ion: cannot find a home directory: HOME is not set and this user has none\n" +
        "  hint: set HOME, or ION_CONFIG_DIR, ION_DATA_DIR and XDG_CACHE_HOME\n",
    );
  });
});

describe("a config directory that cannot be written", () => {
  test("config set and providers login say why in words, and nothing else", async () => {
    using box = new Sandbox();
    const inside = join(box.root, "a-file");
    writeFileSync(inside, "x");
    const env = { ION_CONFIG_DIR: join(inside, "ion") };
    const set = await box.run(["config", "set", "thinking", "low"], { env });
    expect(set.code).toBe(1);
    expect(set.stderr).toBe(
      `ion: cannot write ${join(inside, "ion", "config.json")} (part of the path is a file, not a directory, ENOTDIR)\n`,
    );
    const login = await box.run(["providers", "login", "openai"], { env, stdin: "test-key-login\n" });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(`cannot create the config directory ${join(inside, "ion")}`);
    expect(login.stderr).not.toContain("test-key-login");
  });
});
