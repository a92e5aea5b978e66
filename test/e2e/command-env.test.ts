/**
 * End to end: what the commands ion starts inherit. `env` run by the model's `bash` call, a hook and
 * an MCP stdio server see ion's environment without the provider keys and without secret-like names,
 * unless the user's config keeps them (or a server's own `env` sets them).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const OPENAI_KEY = "test-key-cmdenv-123";
const { server, env } = useOpenAIServer(OPENAI_KEY);
const MODEL = ["-m", "openai/gpt-4o-mini"];

/** ion's environment besides the fake provider's: a second provider key, a copy of the first, secrets. */
const SECRETS = {
  ANTHROPIC_API_KEY: "test-key-anthropic-123",
  KEY_COPY_UNDER_OTHER_NAME: OPENAI_KEY,
  COPIED: OPENAI_KEY,
  GITHUB_TOKEN: "test-token-123",
  AWS_SECRET_ACCESS_KEY: "test-secret-123",
  DB_PASSWORD: "test-password-123",
};
const PLAIN = { PLAIN_SETTING: "plain-value-123" };

/** `NAME=value` lines of `env` output as a record (values on one line only, which ours are). */
function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** What `env` printed inside the bash call, read from the tool result ion sent back to the model. */
function bashEnv(from: number): Record<string, string> {
  const request = server.requests[from + 1]?.body as { messages?: { role: string; content: unknown }[] };
  const result = request.messages?.find((m) => m.role === "tool");
  if (typeof result?.content !== "string") throw new Error("no tool result in the second request");
  return parseEnv((JSON.parse(result.content) as { stdout: string }).stdout);
}

function expectNoSecret(seen: Record<string, string>, kept: readonly string[] = []): void {
  const values = Object.values(seen);
  expect(seen.OPENAI_API_KEY).toBeUndefined();
  expect(values).not.toContain(OPENAI_KEY);
  for (const [name, value] of Object.entries(SECRETS)) {
    if (kept.includes(name)) continue;
    expect(seen[name]).toBeUndefined();
    expect(values).not.toContain(value);
  }
  expect(seen.PLAIN_SETTING).toBe("plain-value-123");
}

async function runEnvCall(box: Sandbox, args: string[] = []): Promise<Record<string, string>> {
  const from = server.requests.length;
  server.enqueueReply("openai", { toolCalls: [{ id: "call_env", name: "bash", input: { command: "env" } }] });
  server.enqueueReply("openai", { text: "done" });
  const run = await box.run(["run", ...MODEL, "-y", ...args, "show the environment"], {
    env: { ...env, ...SECRETS, ...PLAIN },
  });
  expect(run.stdout).toBe("done\n");
  expect(run.code).toBe(0);
  return bashEnv(from);
}

describe("what commands inherit", () => {
  test("bash: no provider key (by name or by value), no *TOKEN*/*SECRET*/*PASSWORD* variable", async () => {
    using box = new Sandbox();
    const seen = await runEnvCall(box);
    expectNoSecret(seen);
    // The bash tool's own additions are still there.
    expect(seen.PAGER).toBe("cat");
    expect(seen.GIT_TERMINAL_PROMPT).toBe("0");
  });

  test("bash with the sandbox off: the same", async () => {
    using box = new Sandbox();
    expectNoSecret(await runEnvCall(box, ["--sandbox", "off"]));
  });

  test("tools.bash.env.keep passes GITHUB_TOKEN on, never a provider key; exclude drops more", async () => {
    using box = new Sandbox();
    await box.writeConfig({
      tools: {
        bash: { env: { keep: ["GITHUB_TOKEN", "OPENAI_API_KEY", "KEY_COPY_*"], exclude: ["PLAIN_*"] } },
      },
    });
    const seen = await runEnvCall(box);
    expect(seen.GITHUB_TOKEN).toBe("test-token-123");
    expect(seen.OPENAI_API_KEY).toBeUndefined();
    expect(seen.KEY_COPY_UNDER_OTHER_NAME).toBeUndefined();
    expect(Object.values(seen)).not.toContain(OPENAI_KEY);
    expect(seen.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(seen.PLAIN_SETTING).toBeUndefined();
  });

  test("ion config set tools.bash.env.keep takes a list, as other list settings do", async () => {
    using box = new Sandbox();
    const set = await box.run(["config", "set", "tools.bash.env.keep", '["GITHUB_TOKEN","AWS_*"]']);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    const config = JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8"));
    expect(config.tools.bash.env.keep).toEqual(["GITHUB_TOKEN", "AWS_*"]);
    const seen = await runEnvCall(box);
    expect(seen.GITHUB_TOKEN).toBe("test-token-123");
    expect(seen.AWS_SECRET_ACCESS_KEY).toBe("test-secret-123");
    expect(seen.DB_PASSWORD).toBeUndefined();
  });

  test("a hook sees the same filtered environment, and the keys kept by config", async () => {
    using box = new Sandbox();
    const dump = join(box.root, "hook-env.txt");
    const hook = join(box.root, "dump-env.sh");
    writeFileSync(hook, `#!/bin/sh\nenv > ${dump}\n`);
    chmodSync(hook, 0o755);
    await box.writeConfig({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] },
      tools: { bash: { env: { keep: ["GITHUB_TOKEN"] } } },
    });
    await runEnvCall(box);
    const seen = parseEnv(readFileSync(dump, "utf8"));
    expectNoSecret(seen, ["GITHUB_TOKEN"]);
    expect(seen.GITHUB_TOKEN).toBe("test-token-123");
    expect(seen.CLAUDE_PROJECT_DIR).toBe(box.workspace);
  });

  test("an MCP stdio server gets the filtered environment, plus what its own env sets", async () => {
    using box = new Sandbox();
    // Each server writes its environment to a file and exits: enough to see what it was given.
    const dumper = (file: string) => [
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify(process.env))`,
    ];
    const plainDump = join(box.root, "plain-server.json");
    const tokenDump = join(box.root, "token-server.json");
    await box.writeConfig({
      mcpServers: {
        plain: { command: process.execPath, args: dumper(plainDump) },
        github: {
          command: process.execPath,
          args: dumper(tokenDump),
          // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} written literally is what config files hold
          env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" },
        },
      },
    });
    server.enqueueReply("openai", { text: "done" });
    const run = await box.run(["run", ...MODEL, "-y", "hi"], { env: { ...env, ...SECRETS, ...PLAIN } });
    expect(run.stdout).toBe("done\n");
    expect(existsSync(plainDump) && existsSync(tokenDump)).toBe(true);
    const plain = JSON.parse(readFileSync(plainDump, "utf8")) as Record<string, string>;
    const token = JSON.parse(readFileSync(tokenDump, "utf8")) as Record<string, string>;
    expectNoSecret(plain);
    expectNoSecret(token, ["GITHUB_TOKEN"]);
    expect(token.GITHUB_TOKEN).toBe("test-token-123");
  });
});
