import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cacheDir, configDir, configFiles, dataDir } from "../../src/config/paths.ts";

const HOME = join("/", "home", "tester");
const XDG = { XDG_CONFIG_HOME: "/xdg/config", XDG_DATA_HOME: "/xdg/data" };

describe("XDG paths", () => {
  test("fall back to the home directory", () => {
    const env = { HOME };
    expect(configDir(env)).toBe(join(HOME, ".config", "ion"));
    expect(dataDir(env)).toBe(join(HOME, ".local", "share", "ion"));
    expect(cacheDir(env)).toBe(join(HOME, ".cache", "ion"));
  });

  test("XDG variables beat the home directory", () => {
    const env = { HOME, ...XDG, XDG_CACHE_HOME: "/xdg/cache" };
    expect(configDir(env)).toBe(join("/xdg/config", "ion"));
    expect(dataDir(env)).toBe(join("/xdg/data", "ion"));
    expect(cacheDir(env)).toBe(join("/xdg/cache", "ion"));
  });

  test("ION_CONFIG_DIR and ION_DATA_DIR beat XDG", () => {
    const env = { HOME, ...XDG, ION_CONFIG_DIR: "/ion/config", ION_DATA_DIR: "/ion/data" };
    expect(configDir(env)).toBe("/ion/config");
    expect(dataDir(env)).toBe("/ion/data");
  });

  test("empty and relative XDG values are ignored", () => {
    const env = { HOME, XDG_CONFIG_HOME: "", XDG_DATA_HOME: "relative/data", ION_CONFIG_DIR: "" };
    expect(configDir(env)).toBe(join(HOME, ".config", "ion"));
    expect(dataDir(env)).toBe(join(HOME, ".local", "share", "ion"));
  });

  test("config files live in the config dir and the project's .ion dir", () => {
    const files = configFiles("/home/me/project", { HOME, ION_CONFIG_DIR: "/ion/config" });
    expect(files).toEqual({
      user: join("/ion/config", "config.json"),
      project: join("/home/me/project", ".ion", "config.json"),
      keys: join("/ion/config", "keys.json"),
    });
  });
});
