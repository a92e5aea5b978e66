/**
 * Runs the real CLI as a child process: `bun src/main.ts` by default, or the compiled binary named
 * by ION_BIN (CI runs the e2e suite once against dist/ion). Every run gets its own HOME, config and
 * data dirs, and an environment with no real provider keys or base URLs.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

const SCRUBBED = /^(OPENAI|ANTHROPIC|GEMINI|GOOGLE|MISTRAL|OPENROUTER|GROQ|OLLAMA|ION|XDG)_/;

export function ionCommand(): string[] {
  const bin = process.env.ION_BIN;
  return bin ? [resolve(ROOT, bin)] : [process.execPath, join(ROOT, "src/main.ts")];
}

export interface IonRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface IonOptions {
  env?: Record<string, string>;
  /** Text piped to stdin; omitted means stdin is /dev/null (never a TTY). */
  stdin?: string;
  cwd?: string;
  timeoutMs?: number;
}

/** A sandbox of temp dirs for one test: HOME, config dir, data dir, and a workspace. */
export class Sandbox {
  readonly root: string;
  readonly home: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly workspace: string;

  /** `base`: where the temp dirs go (default the system's temp dir). */
  constructor(base = tmpdir()) {
    this.root = mkdtempSync(join(base, "ion-test-"));
    this.home = join(this.root, "home");
    this.configDir = join(this.root, "config");
    this.dataDir = join(this.root, "data");
    this.workspace = join(this.root, "work");
    for (const dir of [this.home, this.configDir, this.dataDir, this.workspace]) {
      Bun.spawnSync(["mkdir", "-p", dir]);
    }
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const base: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && !SCRUBBED.test(key)) base[key] = value;
    }
    return {
      ...base,
      HOME: this.home,
      ION_CONFIG_DIR: this.configDir,
      ION_DATA_DIR: this.dataDir,
      XDG_CACHE_HOME: join(this.root, "cache"),
      NO_COLOR: "1",
      ...extra,
    };
  }

  /** Writes a file into the config dir, 0600 as ion writes its own (a shared one holding a key is warned about). */
  async writeConfig(value: unknown, name = "config.json"): Promise<string> {
    const path = join(this.configDir, name);
    await Bun.write(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
    chmodSync(path, 0o600);
    return path;
  }

  /** The names of the session files (`<id>.jsonl.zst`) in the data dir; none before the first save. */
  sessionFiles(): string[] {
    const dir = join(this.dataDir, "sessions");
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl.zst")) : [];
  }

  /** Spawns ion and waits for it to exit. */
  async run(args: string[], options: IonOptions = {}): Promise<IonRun> {
    const child = this.spawn(args, options);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
    const run = await collect(child);
    clearTimeout(timer);
    return run;
  }

  spawn(args: string[], options: IonOptions = {}) {
    const child = Bun.spawn([...ionCommand(), ...args], {
      cwd: options.cwd ?? this.workspace,
      env: this.env(options.env),
      stdin: options.stdin === undefined ? "ignore" : "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    if (options.stdin !== undefined && child.stdin) {
      const stdin = child.stdin;
      // ion reads no more stdin than the model's window could take: the rest may meet a closed pipe.
      const unlessClosed = (err: unknown) => {
        if ((err as { code?: unknown }).code !== "EPIPE") throw err;
      };
      Promise.resolve()
        .then(async () => {
          await stdin.write(options.stdin ?? "");
          await stdin.end();
        })
        .catch(unlessClosed);
    }
    return child;
  }

  [Symbol.dispose](): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Waits for a spawned process (stdout and stderr piped) and gathers what it printed. */
export async function collect(child: {
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  exited: Promise<number>;
}): Promise<IonRun> {
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** Parses JSON Lines output, failing loudly on any line that is not JSON. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
