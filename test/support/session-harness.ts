/**
 * The set-up agent-session tests share: a temp home with a user config file, pointed at the fake
 * server, removed after each test; and the SessionOptions of a plain new session in it.
 */
import { afterEach } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent, RunResult } from "../../src/agent/events.ts";
import type { SessionOptions } from "../../src/agent/session.ts";
import type { UserBlock } from "../../src/providers/types.ts";

export interface SessionSandbox {
  root: string;
  env: {
    HOME: string;
    ION_CONFIG_DIR: string;
    ION_DATA_DIR: string;
    XDG_CACHE_HOME: string;
    OPENAI_BASE_URL: string;
    OPENAI_API_KEY: string;
  };
  configDir: string;
  dataDir: string;
}

/**
 * A maker of sandboxes for this test file: `ion-<name>-` temp dirs (gone after each test) whose env
 * sends OpenAI requests to `server` with the key `test-key-<name>`, and whose config.json is `config`.
 * `server` is read when a sandbox is made, so the file's fake server may start later.
 */
export function useSessionSandbox(
  server: { url: string },
  name: string,
): (config?: object) => SessionSandbox {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (config = {}) => {
    const root = mkdtempSync(join(tmpdir(), `ion-${name}-`));
    dirs.push(root);
    const env = {
      HOME: root,
      ION_CONFIG_DIR: join(root, "config"),
      ION_DATA_DIR: join(root, "data"),
      XDG_CACHE_HOME: join(root, "cache"),
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: `test-key-${name}`,
    };
    mkdirSync(env.ION_CONFIG_DIR, { recursive: true });
    writeFileSync(join(env.ION_CONFIG_DIR, "config.json"), JSON.stringify(config));
    return { root, env, configDir: env.ION_CONFIG_DIR, dataDir: env.ION_DATA_DIR };
  };
}

/** A new session in the sandbox on openai/gpt-4o-mini, asking before tools, at most 10 turns; `extra` overrides. */
export function sessionOptions(
  box: Pick<SessionSandbox, "root" | "env">,
  extra: Partial<SessionOptions> = {},
): SessionOptions {
  return {
    cwd: box.root,
    env: box.env,
    model: "openai/gpt-4o-mini",
    yes: false,
    noTools: false,
    maxTurns: 10,
    newId: Bun.randomUUIDv7(),
    choice: { continueLatest: false, resume: undefined, noSession: false },
    notice: () => {},
    ...extra,
  };
}

/** The user's words as the blocks of a turn. */
export function userBlocks(text: string): UserBlock[] {
  return [{ type: "text", text }];
}

/** The run's result among a turn's events; throws when the turn ended without one. */
export function runResultOf(events: AgentEvent[]): RunResult {
  const found = events.find((e) => e.type === "result");
  if (found?.type !== "result") throw new Error("the turn ended without a result");
  return found.result;
}
