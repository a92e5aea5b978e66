/**
 * A fresh temp directory per test with the places context loading looks at: a HOME, an ion config
 * dir, an XDG config home, and an environment naming them (so nothing of the real user is read).
 */
import { afterEach, beforeEach } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempHome {
  readonly base: string;
  readonly home: string;
  /** `ION_CONFIG_DIR`. */
  readonly config: string;
  /** `XDG_CONFIG_HOME`. */
  readonly xdg: string;
  readonly env: Record<string, string>;
}

export function useTempHome(prefix: string): TempHome {
  let current: TempHome | undefined;
  beforeEach(() => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    const home = join(base, "home");
    const config = join(base, "ion-config");
    const xdg = join(base, "xdg");
    for (const dir of [home, config, xdg]) mkdirSync(dir);
    const env = { HOME: home, ION_CONFIG_DIR: config, XDG_CONFIG_HOME: xdg, PATH: process.env.PATH ?? "" };
    current = { base, home, config, xdg, env };
  });
  afterEach(() => {
    if (current) rmSync(current.base, { recursive: true, force: true });
    current = undefined;
  });
  const get = (): TempHome => {
    if (!current) throw new Error("the temp home exists only while a test runs");
    return current;
  };
  return {
    get base() {
      return get().base;
    },
    get home() {
      return get().home;
    },
    get config() {
      return get().config;
    },
    get xdg() {
      return get().xdg;
    },
    get env() {
      return get().env;
    },
  };
}
