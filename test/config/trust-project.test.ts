// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} written literally is what .mcp.json holds
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot, projectRunnables } from "../../src/config/trust-project.ts";
import { TempProject } from "./trust-temp-project.ts";

const MCP = {
  mcpServers: {
    files: {
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "my dir"],
      env: { GITHUB_TOKEN: "ghp-test-token-0000000001", MODE: "${MODE:-fast}" },
    },
    remote: {
      type: "http",
      url: "https://mcp.example.test/mcp?key=abc",
      headers: { Authorization: "Bearer test-token-0000000002", "X-Title": "ion" },
    },
  },
};

const what = (project: ReturnType<typeof projectRunnables>) =>
  project.items.map((item) => `${item.label}: ${item.what}`);

describe("projectRunnables", () => {
  test("a project with neither file runs nothing", () => {
    using p = new TempProject();
    p.write(".ion/config.json", { model: "openai/gpt-4o", thinking: "low" });
    const project = projectRunnables(p.root, p.env);
    expect(project.root).toBe(p.root);
    expect(project.items).toEqual([]);
    expect(project.mcpServers).toBeUndefined();
    expect(project.warnings).toEqual([]);
  });

  test(".mcp.json: each server's exact command line, environment and URL, secrets masked", () => {
    using p = new TempProject();
    const file = p.write(".mcp.json", MCP);
    const project = projectRunnables(p.root, p.env);
    expect(what(project)).toEqual([
      `MCP server "files": GITHUB_TOKEN=…0001 MODE=\${MODE:-fast} npx -y @modelcontextprotocol/server-filesystem 'my dir'`,
      'MCP server "remote": http https://mcp.example.test/mcp?key=*** with headers Authorization: Bearer …0002, X-Title: ion',
    ]);
    expect(project.items.every((item) => item.file === file && item.kind === "mcp-server")).toBe(true);
    expect(project.items.map((item) => item.key)).toEqual(["files", "remote"]);
    // The definitions exactly as written (unexpanded), for the MCP client to start once trusted.
    expect(project.mcpServers).toEqual(MCP.mcpServers);
  });

  test(".ion/config.json: hooks one command each, MCP servers, and the settings that need trust", () => {
    using p = new TempProject();
    const file = p.write(".ion/config.json", {
      model: "openai/gpt-4o",
      api_key: "sk-test-project-key-0000000003",
      providers: {
        openai: {
          api_base: "http://user:pw@proxy.example.test/v1",
          headers: { "x-api-key": "test-0000000004" },
        },
        ollama: { models: ["llama3"] },
      },
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "./check.sh --strict", timeout: 5 }] },
        ],
        Stop: [
          {
            hooks: [
              { type: "command", command: "notify-send done" },
              { type: "command", command: "true" },
            ],
          },
        ],
      },
      mcpServers: { db: { command: "db-mcp", args: ["--read-only"] } },
      permissions: { mode: "auto" },
    });
    const project = projectRunnables(p.root, p.env);
    expect(what(project)).toEqual([
      "api_key: sk-…0003",
      "providers.openai.api_base: http://***@proxy.example.test/v1",
      'providers.openai.headers: {"x-api-key":"…0004"}',
      "hook PreToolUse (Bash): ./check.sh --strict",
      "hook Stop: notify-send done",
      "hook Stop: true",
      'MCP server "db": db-mcp --read-only',
      'permissions: {"mode":"auto"}',
    ]);
    expect(project.items.every((item) => item.file === file)).toBe(true);
    expect([...new Set(project.items.map((item) => item.key))]).toEqual([
      "api_key",
      "providers.openai.api_base",
      "providers.openai.headers",
      "hooks",
      "mcpServers",
      "permissions",
    ]);
    // Servers of the config file come through the config, not as `.mcp.json`'s.
    expect(project.mcpServers).toBeUndefined();
  });

  test("from a subdirectory: .mcp.json at the git root, the config file of the directory itself", () => {
    using p = new TempProject();
    p.write(".mcp.json", { mcpServers: { top: { command: "top-server" } } });
    p.write(".ion/config.json", {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "root-hook" }] }] },
    });
    const sub = join(p.root, "pkg", "app");
    p.write("pkg/app/.ion/config.json", {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "app-hook" }] }] },
    });
    const project = projectRunnables(sub, p.env);
    expect(project.root).toBe(p.root);
    expect(what(project)).toEqual(['MCP server "top": top-server', "hook Stop: app-hook"]);
  });

  test("the root is the real path: a project reached through a symlink is the same project", () => {
    using p = new TempProject();
    const link = join(p.base, "link");
    symlinkSync(p.root, link);
    expect(projectRoot(link)).toBe(p.root);
    expect(projectRoot(join(link, "."))).toBe(p.root);
    // Outside a repository, the directory itself.
    using bare = new TempProject({ git: false });
    expect(projectRoot(bare.root)).toBe(bare.root);
  });

  test("the hash follows the definitions, not their layout or the settings a project may set", () => {
    using p = new TempProject();
    p.write(".mcp.json", MCP);
    p.write(".ion/config.json", { model: "openai/gpt-4o", hooks: { Stop: [{ hooks: [{ command: "a" }] }] } });
    const first = projectRunnables(p.root, p.env).hash;
    expect(first).toMatch(/^[0-9a-f]{64}$/);

    // Same definitions, keys in another order and compact: same hash.
    const reordered = { mcpServers: { remote: MCP.mcpServers.remote, files: MCP.mcpServers.files } };
    writeFileSync(join(p.root, ".mcp.json"), JSON.stringify(reordered));
    p.write(".ion/config.json", { hooks: { Stop: [{ hooks: [{ command: "a" }] }] }, model: "anthropic/x" });
    expect(projectRunnables(p.root, p.env).hash).toBe(first);

    const changes: Array<() => void> = [
      () =>
        p.write(".mcp.json", {
          mcpServers: { ...MCP.mcpServers, files: { ...MCP.mcpServers.files, args: ["-y"] } },
        }),
      () =>
        p.write(".mcp.json", {
          mcpServers: { ...MCP.mcpServers, files: { ...MCP.mcpServers.files, env: {} } },
        }),
      () => p.write(".ion/config.json", { hooks: { Stop: [{ hooks: [{ command: "b" }] }] } }),
      () =>
        p.write(".ion/config.json", {
          hooks: { Stop: [{ hooks: [{ command: "a" }] }] },
          api_base: "http://x",
        }),
    ];
    const seen = new Set([first]);
    for (const change of changes) {
      p.write(".mcp.json", MCP);
      p.write(".ion/config.json", { hooks: { Stop: [{ hooks: [{ command: "a" }] }] } });
      change();
      const hash = projectRunnables(p.root, p.env).hash;
      expect(seen.has(hash)).toBe(false);
      seen.add(hash);
    }
  });

  test("a .mcp.json linked out of the project, or not JSON, is skipped with a warning: nothing runs", () => {
    using p = new TempProject();
    const outside = join(p.base, "elsewhere.json");
    writeFileSync(outside, JSON.stringify(MCP));
    symlinkSync(outside, join(p.root, ".mcp.json"));
    const linked = projectRunnables(p.root, p.env);
    expect(linked.items).toEqual([]);
    expect(linked.mcpServers).toBeUndefined();
    expect(linked.warnings).toEqual([
      `skipped ${join(p.root, ".mcp.json")}: it resolves outside the project (to ${outside})`,
    ]);

    using q = new TempProject();
    q.write(".mcp.json", "{ not json");
    const broken = projectRunnables(q.root, q.env);
    expect(broken.items).toEqual([]);
    expect(broken.warnings).toEqual([`skipped ${join(q.root, ".mcp.json")}: not valid JSON`]);
    q.write(".mcp.json", { servers: {} });
    expect(projectRunnables(q.root, q.env).warnings).toEqual([
      `${join(q.root, ".mcp.json")}: no "mcpServers" object; no MCP server from it is started`,
    ]);
  });

  test("control characters in a repository's names and commands are written out, not acted on", () => {
    using p = new TempProject();
    p.write(".mcp.json", { mcpServers: { "evil\u001b[2J": { command: "run\rclear", args: ["a\u202eb"] } } });
    const [item] = projectRunnables(p.root, p.env).items;
    expect(item!.label).toBe('MCP server "evil\\x1b[2J"');
    expect(item!.what).toBe("'run\\rclear' 'a\\u202eb'");
  });

  test("the user's own config dir inside the project is not the project's file", () => {
    using p = new TempProject();
    p.write(".ion/config.json", { hooks: { Stop: [{ hooks: [{ command: "mine" }] }] } });
    const env = { ...p.env, ION_CONFIG_DIR: join(p.root, ".ion") };
    expect(projectRunnables(p.root, env).items).toEqual([]);
  });

  test("a directory where .mcp.json would be is not a file to read", () => {
    using p = new TempProject();
    mkdirSync(join(p.root, ".mcp.json"));
    const project = projectRunnables(p.root, p.env);
    expect(project.items).toEqual([]);
    expect(project.warnings).toEqual([`skipped ${join(p.root, ".mcp.json")}: it is not a regular file`]);
  });
});
