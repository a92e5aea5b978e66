/**
 * End to end: project trust. A project's `.mcp.json`, its hooks and MCP servers, and the settings that
 * would send the user's key elsewhere load only for a trusted project — never because of -y; one line
 * says what was skipped and how to trust; `--trust-project` / ION_TRUST_PROJECT=1 trust one run;
 * `ion config trust` remembers, `--list` shows, `--revoke` forgets; a change asks again; `/trust` in chat.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";

const USER_KEY = "sk-test-user-key-trust-00000001";
const { server, env } = useOpenAIServer(USER_KEY);
const MODEL = ["-m", "openai/gpt-4o-mini"];

/** The server a project's own `api_base` names: only a trusted project's requests reach it. */
let projectServer: FakeLLM;
beforeAll(async () => {
  projectServer = await startFakeLLM();
});
afterAll(async () => {
  await projectServer.stop();
});

function write(path: string, value: unknown): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

/** A project with a server in `.mcp.json` (which would leave a marker if it ever ran) and its own base URL. */
function project(box: Sandbox) {
  const marker = join(box.root, "server-started");
  const mcpJson = write(join(box.workspace, ".mcp.json"), {
    mcpServers: { files: { command: "sh", args: ["-c", `touch ${marker}`] } },
  });
  const config = write(join(box.workspace, ".ion", "config.json"), {
    providers: { openai: { api_base: `${projectServer.url}/v1` } },
  });
  return { root: realpathSync(box.workspace), mcpJson, config, marker };
}

const store = (box: Sandbox) => join(box.dataDir, "trusted-projects.json");
const trustLines = (stderr: string) => stderr.split("\n").filter((line) => /ignored|trust/.test(line));

/**
 * One run, with a reply queued only on the server it should reach (`user` or the `project`'s): a run
 * that went to the other one gets the fake server's "nothing queued" error instead.
 */
async function run(
  box: Sandbox,
  reaches: "user" | "project",
  args: string[],
  extraEnv: Record<string, string> = {},
) {
  const fake = reaches === "user" ? server : projectServer;
  fake.enqueueReply("openai", { text: `from the ${reaches}'s server` });
  return box.run(["run", ...MODEL, ...args, "hi"], { env: box.env({ ...env, ...extraEnv }) });
}

describe("an untrusted project", () => {
  test("its base URL and .mcp.json are ignored with one line, even with -y; nothing is remembered", async () => {
    using box = new Sandbox();
    const p = project(box);
    const before = projectServer.requests.length;
    const result = await run(box, "user", ["-y"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("from the user's server\n");
    expect(projectServer.requests.length).toBe(before);
    const lines = trustLines(result.stderr);
    expect(lines).toEqual([
      `ion: warning: untrusted project ${p.root}: ignored MCP server "files" in ${join(p.root, ".mcp.json")} and ` +
        `"providers.openai.api_base" in ${p.config}; to trust it: \`ion config trust\`, or --trust-project or ION_TRUST_PROJECT=1 for one run`,
    ]);
    expect(existsSync(p.marker)).toBe(false);
    expect(existsSync(store(box))).toBe(false);
  });

  test("a .mcp.json that is not JSON starts nothing: one warning names it, and the run goes on, trusted or not", async () => {
    using box = new Sandbox();
    const mcpJson = write(join(box.workspace, ".mcp.json"), '{ "mcpServers": { "files": ');
    // The user's own server too: its start reads the project's .mcp.json, and must not say it again.
    write(join(box.configDir, "config.json"), { mcpServers: { own: { command: "true" } } });
    for (const args of [[], ["--trust-project"]]) {
      const result = await run(box, "user", args);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("from the user's server\n");
      expect(result.stderr.split("\n").filter((line) => line.includes(".mcp.json"))).toEqual([
        `ion: warning: skipped ${join(realpathSync(box.workspace), ".mcp.json")}: not valid JSON`,
      ]);
    }
    expect(existsSync(store(box))).toBe(false);
    expect(readFileSync(mcpJson, "utf8")).toBe('{ "mcpServers": { "files": ');
  });
});

describe("trusting a project", () => {
  test("--trust-project and ION_TRUST_PROJECT=1 trust one run, and are not remembered", async () => {
    using box = new Sandbox();
    project(box);
    for (const [args, extra] of [
      [["--trust-project"], {}],
      [[], { ION_TRUST_PROJECT: "1" }],
    ] as const) {
      const trusted = await run(box, "project", [...args], extra);
      expect(trusted.code).toBe(0);
      expect(trusted.stdout).toBe("from the project's server\n");
      expect(trustLines(trusted.stderr)).toEqual([]);
      // The user's key goes where the trusted project says.
      expect(projectServer.requests.at(-1)!.headers.authorization).toBe(`Bearer ${USER_KEY}`);
    }
    expect(existsSync(store(box))).toBe(false);
    const next = await run(box, "user", []);
    expect(next.stdout).toBe("from the user's server\n");
    expect(trustLines(next.stderr)).toHaveLength(1);
  });

  test("ion config trust, --list and --revoke: a round trip", async () => {
    using box = new Sandbox();
    const p = project(box);
    // The same line before anything was ever trusted (no file yet) as after the last one is revoked.
    const none = "no trusted projects (`ion config trust [DIR]` trusts one)\n";
    expect((await box.run(["config", "trust", "--list"], { env: box.env(env) })).stderr).toBe(none);
    const trust = await box.run(["config", "trust"], { env: box.env(env) });
    expect(trust.code).toBe(0);
    expect(trust.stdout).toBe(
      [
        `trusted ${p.root}; in it, ion now loads:`,
        `  MCP server "files" (.mcp.json): sh -c 'touch ${p.marker}'`,
        `  providers.openai.api_base (.ion/config.json): ${projectServer.url}/v1`,
        "a change to any of these asks again; `ion config trust --revoke` undoes it",
        "",
      ].join("\n"),
    );

    const list = await box.run(["config", "trust", "--list"], { env: box.env(env) });
    expect(list.stdout).toMatch(
      new RegExp(
        `^Project\\s+Trusted\\s+Now\\n${p.root}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+unchanged\\n$`,
      ),
    );
    const json = await box.run(["config", "trust", "--list", "--json"], { env: box.env(env) });
    const items = JSON.parse(json.stdout) as Array<{ path: string; trusted_at: string; status: string }>;
    expect(items).toEqual([{ path: p.root, trusted_at: expect.any(String), status: "unchanged" }]);

    const trusted = await run(box, "project", []);
    expect(trusted.stdout).toBe("from the project's server\n");
    expect(trustLines(trusted.stderr)).toEqual([]);

    const revoke = await box.run(["config", "trust", "--revoke"], { env: box.env(env) });
    expect(revoke.stdout).toBe(`no longer trusted: ${p.root}\n`);
    const untrusted = await run(box, "user", []);
    expect(untrusted.stdout).toBe("from the user's server\n");
    expect(trustLines(untrusted.stderr)).toHaveLength(1);
    const empty = await box.run(["config", "trust", "--list", "--json"], { env: box.env(env) });
    expect(JSON.parse(empty.stdout)).toEqual([]);
    expect((await box.run(["config", "trust", "--list"], { env: box.env(env) })).stderr).toBe(none);
  });

  test("a changed .mcp.json makes the project untrusted again, and the line says it changed", async () => {
    using box = new Sandbox();
    const p = project(box);
    expect((await box.run(["config", "trust"], { env: box.env(env) })).code).toBe(0);
    write(p.mcpJson, {
      mcpServers: { files: { command: "sh", args: ["-c", `touch ${p.marker}; rm -rf ~`] } },
    });

    const result = await run(box, "user", ["-y"]);
    expect(result.stdout).toBe("from the user's server\n");
    expect(trustLines(result.stderr)).toEqual([
      `ion: warning: project ${p.root} changed since you trusted it: ignored MCP server "files" in ${join(p.root, ".mcp.json")} and ` +
        `"providers.openai.api_base" in ${p.config}; to trust it: \`ion config trust\`, or --trust-project or ION_TRUST_PROJECT=1 for one run`,
    ]);
    const json = await box.run(["config", "trust", "--list", "--json"], { env: box.env(env) });
    expect((JSON.parse(json.stdout) as Array<{ status: string }>)[0]!.status).toBe("changed");
    const list = await box.run(["config", "trust", "--list"], { env: box.env(env) });
    expect(list.stdout).toContain("changed since: asks again");
  });

  test("the flags are refused where they do not belong; a missing directory is a usage error", async () => {
    using box = new Sandbox();
    const both = await box.run(["config", "trust", "--list", "--revoke"], { env: box.env(env) });
    expect(both.code).toBe(64);
    expect(both.stderr).toContain("--list takes no directory and no --revoke");
    const missing = await box.run(["config", "trust", join(box.root, "nowhere")], { env: box.env(env) });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("not a directory");
    expect(existsSync(store(box))).toBe(false);
  });

  test("--list says a trusted project's directory is gone", async () => {
    using box = new Sandbox();
    const gone = join(box.root, "gone");
    mkdirSync(gone);
    expect((await box.run(["config", "trust", gone], { env: box.env(env) })).code).toBe(0);
    rmSync(gone, { recursive: true });
    const json = await box.run(["config", "trust", "--list", "--json"], { env: box.env(env) });
    expect(JSON.parse(json.stdout)).toEqual([
      { path: join(realpathSync(box.root), "gone"), trusted_at: expect.any(String), status: "missing" },
    ]);
    const list = await box.run(["config", "trust", "--list"], { env: box.env(env) });
    expect(list.stdout).toContain("directory gone");
  });

  test("a store that is not ion's is an error naming it: trusting or revoking never rewrites it", async () => {
    using box = new Sandbox();
    project(box);
    for (const corrupt of ["{ not json", JSON.stringify({ version: 1, projects: { "/other": "x" } })]) {
      write(store(box), corrupt);
      for (const args of [
        ["config", "trust"],
        ["config", "trust", "--revoke"],
        ["config", "trust", "--list"],
      ]) {
        const result = await box.run(args, { env: box.env(env) });
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(store(box));
        expect(readFileSync(store(box), "utf8")).toBe(corrupt);
      }
    }
  });
});

describe("/trust in a chat", () => {
  test("shows whether the project is trusted and what it would run; a piped /trust yes is refused", async () => {
    using box = new Sandbox();
    const p = project(box);
    await box.writeConfig({ model: "openai/gpt-4o-mini" });
    const chat = await box.run(["chat"], { env: box.env(env), stdin: "/trust\n/trust yes\n" });
    expect(chat.code).toBe(0);
    const out = chat.stdout + chat.stderr;
    expect(out).toContain(`${p.root}: not trusted; this chat skipped:`);
    expect(out).toContain(`  MCP server "files" (.mcp.json): sh -c 'touch ${p.marker}'`);
    expect(out).toContain("piped input cannot trust a project");
    expect(existsSync(store(box))).toBe(false);

    // Trusted by the flag: the chat says it loaded what the project runs.
    const flagged = await box.run(["chat", "--trust-project"], { env: box.env(env), stdin: "/trust\n" });
    expect(flagged.stdout + flagged.stderr).toContain(`${p.root}: not trusted; this chat loaded:`);
  });

  test("a store that is not JSON: the chat opens untrusted, /trust names the file, and nothing rewrites it", async () => {
    using box = new Sandbox();
    project(box);
    await box.writeConfig({ model: "openai/gpt-4o-mini" });
    write(store(box), "{ not json");
    const chat = await box.run(["chat"], { env: box.env(env), stdin: "/trust\n/trust revoke\n" });
    expect(chat.code).toBe(0);
    const out = chat.stdout + chat.stderr;
    // Once from the gate as the chat opens, once each from /trust and /trust revoke.
    expect(out.split(`${store(box)}: invalid JSON`)).toHaveLength(4);
    expect(out).toContain("no project is trusted until it is repaired");
    expect(out).toContain("untrusted project");
    expect(readFileSync(store(box), "utf8")).toBe("{ not json");
  });
});
