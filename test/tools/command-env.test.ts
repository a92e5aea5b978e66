import { describe, expect, test } from "bun:test";
import { filterProjectConfig, projectKeyRule } from "../../src/config/project-rules.ts";
import type { Config } from "../../src/config/schema.ts";
import { commandEnvironment, providerKeys, secretLikeName } from "../../src/tools/command-env.ts";

const bashEnv = (env: Config["tools"]): Config => ({ tools: env });

describe("commandEnvironment", () => {
  test("passes ordinary variables as they are", () => {
    const env = { PATH: "/usr/bin:/bin", HOME: "/home/u", LANG: "C.UTF-8", EMPTY: "" };
    expect(commandEnvironment({ env })).toEqual(env);
  });

  test("drops every provider key variable of the registry, set or not", () => {
    const env = {
      PATH: "/bin",
      OPENAI_API_KEY: "test-key-openai",
      ANTHROPIC_API_KEY: "test-key-anthropic",
      GEMINI_API_KEY: "test-key-gemini",
      GOOGLE_API_KEY: "test-key-google",
    };
    expect(commandEnvironment({ env })).toEqual({ PATH: "/bin" });
    expect(providerKeys({ env: {} }).names).toContain("MISTRAL_API_KEY");
  });

  test("drops a provider key copied under another name, whatever the name (value match, trimmed)", () => {
    const env = {
      OPENAI_API_KEY: "test-key-123",
      MY_COPY: "test-key-123",
      PADDED: "  test-key-123\n",
      CONTAINS_IT: "prefix test-key-123",
    };
    const out = commandEnvironment({ env });
    expect(out).toEqual({ CONTAINS_IT: "prefix test-key-123" });
  });

  test("keys from keys.json and the config's api_key (top level and per provider) count as provider keys", () => {
    const env = { A: "test-keys-json", B: "test-config-top", C: "test-config-provider", D: "other" };
    const config: Config = {
      api_key: "test-config-top",
      providers: { local: { type: "openai-compatible", api_key: " test-config-provider " } },
    };
    const out = commandEnvironment({ env, config, keys: { openai: "test-keys-json" } });
    expect(out).toEqual({ D: "other" });
  });

  test("an empty or blank key drops no variable by value", () => {
    const env = { OPENAI_API_KEY: " ", BLANK: " ", EMPTY: "" };
    expect(commandEnvironment({ env, keys: { openai: "" } })).toEqual({ BLANK: " ", EMPTY: "" });
  });

  test("drops names containing KEY, SECRET, TOKEN or PASSWORD in any case", () => {
    const env = {
      GITHUB_TOKEN: "test-token-123",
      AWS_SECRET_ACCESS_KEY: "test-secret-123",
      PGPASSWORD: "test-password",
      npm_config__authToken: "test-token-456",
      my_api_key: "test-key-789",
      // "contains" is the rule, so this goes too (keep re-admits it).
      KEYBOARD_LAYOUT: "us",
      USER: "u",
    };
    expect(commandEnvironment({ env })).toEqual({ USER: "u" });
    expect(secretLikeName("SshAuthSock")).toBe(false);
    expect(secretLikeName("session_Token")).toBe(true);
  });

  test("keep re-admits secret-like names, by name or glob, matched case-sensitively", () => {
    const env = {
      GITHUB_TOKEN: "test-token-123",
      AWS_SECRET_ACCESS_KEY: "test-secret-123",
      AWS_SESSION_TOKEN: "test-session-123",
      KEYBOARD_LAYOUT: "us",
      github_token: "test-token-lower",
      NPM_TOKEN: "test-npm",
    };
    const config = bashEnv({ bash: { env: { keep: ["GITHUB_TOKEN", "AWS_*", "KEYBOARD_?AYOUT"] } } });
    expect(commandEnvironment({ env, config })).toEqual({
      GITHUB_TOKEN: "test-token-123",
      AWS_SECRET_ACCESS_KEY: "test-secret-123",
      AWS_SESSION_TOKEN: "test-session-123",
      KEYBOARD_LAYOUT: "us",
    });
  });

  test("a glob's other characters are literal", () => {
    const env = { "A.B_TOKEN": "1", AXB_TOKEN: "2" };
    const config = bashEnv({ bash: { env: { keep: ["A.B_TOKEN"] } } });
    expect(commandEnvironment({ env, config })).toEqual({ "A.B_TOKEN": "1" });
  });

  test("exclude drops more, and wins over keep", () => {
    const env = { PATH: "/bin", MY_PRIVATE_DIR: "/x", MY_PRIVATE_URL: "y", GITHUB_TOKEN: "t", DB_URL: "z" };
    const config = bashEnv({
      bash: { env: { keep: ["GITHUB_TOKEN"], exclude: ["MY_PRIVATE_*", "GITHUB_TOKEN", "DB_URL"] } },
    });
    expect(commandEnvironment({ env, config })).toEqual({ PATH: "/bin" });
  });

  test("keep cannot re-admit a provider key, by name or by value", () => {
    const env = { OPENAI_API_KEY: "test-key-123", GITHUB_TOKEN: "test-key-123", ANTHROPIC_API_KEY: "" };
    const config = bashEnv({ bash: { env: { keep: ["*"] } } });
    expect(commandEnvironment({ env, config })).toEqual({});
  });

  test("variables with no value are left out", () => {
    expect(commandEnvironment({ env: { GONE: undefined, HERE: "1" } })).toEqual({ HERE: "1" });
  });
});

describe("tools.bash is the user's own", () => {
  test("a project may set tools.disabled only when trusted, never tools.bash", () => {
    expect(projectKeyRule(["tools", "disabled"])).toBe("trusted");
    expect(projectKeyRule(["tools", "bash"])).toBe("user");
    expect(projectKeyRule(["tools", "bash", "env", "keep"])).toBe("user");
    const raw = { tools: { disabled: ["bash"], bash: { env: { keep: ["*"] } } } };
    const { kept, ignored } = filterProjectConfig(raw, { trusted: true });
    expect(kept).toEqual({ tools: { disabled: ["bash"] } });
    expect(ignored).toEqual([{ path: "tools.bash", rule: "user" }]);
  });
});
