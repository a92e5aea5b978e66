/**
 * Completion helper benchmark: times `ion completion --words KIND [PREFIX]`, which bash, zsh and fish
 * run on a Tab press, for each kind against a busy user's files (a 2,000-model catalogue cache, 300
 * sessions, 50 skills, 10 agents, 5 MCP servers), with `ion --version` as the process floor; prints
 * p50 and p95. The target: well under 50 ms. Reports only: the exit status is 0 whatever the figures.
 *
 *   bun bench/completion.ts [--bin dist/ion] [--rounds 40] [--warmup 5] [--rebuild]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SessionStore } from "../src/history/store.ts";
import {
  benchOptions,
  type Case,
  ms,
  prepare,
  printFailures,
  quantile,
  sandboxEnv,
  timeCases,
} from "./lib.ts";

const options = benchOptions({ rounds: 40, warmup: 5 });
const TARGET_MS = 50;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A catalogue cache as `ion models` writes it: 2,000 models of 8 providers, the first 4 configured. */
function seedCatalog(cacheDir: string): void {
  const providers = ["openai", "anthropic", "google", "mistral", "groq", "openrouter", "ollama", "custom"];
  const models = Array.from({ length: 2000 }, (_, i) => {
    const provider = providers[i % providers.length]!;
    const model = `model-${i}-${"x".repeat(i % 20)}`;
    return {
      id: `${provider}/${model}`,
      provider,
      model,
      name: `Model ${i}`,
      context: 128_000,
      output: 8192,
      input_cost: 1,
      output_cost: 2,
      cache_read_cost: null,
      cache_write_cost: null,
      tool_call: true,
      reasoning: i % 3 === 0,
      release_date: "2026-01-01",
      configured: providers.indexOf(provider) < 4,
    };
  });
  const cache = {
    version: 1,
    fetched_at: new Date().toISOString(),
    key: "bench",
    configured: providers.slice(0, 4),
    complete: true,
    models,
  };
  write(join(cacheDir, "ion/models.json"), JSON.stringify(cache));
}

async function seedSessions(dataDir: string, cwd: string): Promise<string> {
  const store = SessionStore.forDataDir(dataDir);
  let last = "";
  for (let i = 0; i < 300; i++) {
    const writer = await store.create({
      cwd,
      provider: "openai",
      model: "gpt-4o",
      title: `Session number ${i}`,
    });
    await writer.append([
      { type: "message", message: { role: "user", content: [{ type: "text", text: "x".repeat(2000) }] } },
    ]);
    await writer.close();
    last = writer.id;
  }
  return last;
}

function seedFiles(home: string, configDir: string, project: string): void {
  mkdirSync(join(project, ".git"), { recursive: true });
  writeFileSync(join(project, ".git/HEAD"), "ref: refs/heads/main\n");
  for (let i = 0; i < 50; i++) {
    const dir = i < 25 ? join(project, ".ion/skills") : join(configDir, "skills");
    const name = `skill-${i}`;
    write(
      join(dir, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Does task ${i}.\n---\n\n# ${name}\n`,
    );
  }
  for (let i = 0; i < 10; i++)
    write(
      join(project, ".ion/agents", `agent-${i}.md`),
      `---\nname: agent-${i}\ndescription: Agent ${i}.\n---\n\nYou do task ${i}.\n`,
    );
  const servers = Object.fromEntries(
    Array.from({ length: 5 }, (_, i) => [`server-${i}`, { command: "true", args: [String(i)] }]),
  );
  write(join(configDir, "config.json"), JSON.stringify({ mcpServers: servers }, null, 2));
  write(join(home, ".keep"), "");
}

const prepared = await prepare("hello", options);
if (typeof prepared === "string") {
  process.stderr.write(`${prepared}\n`);
  process.exit(1);
}
const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-completion-"));
try {
  const env = sandboxEnv(sandbox);
  const project = join(sandbox, "project");
  seedCatalog(join(sandbox, ".cache"));
  seedFiles(sandbox, env.ION_CONFIG_DIR!, project);
  const newest = await seedSessions(env.ION_DATA_DIR!, project);
  const words = (name: string, args: string[], expect: (stdout: string) => boolean): Case => ({
    name,
    argv: [prepared.ion, "completion", "--words", ...args],
    expect,
    times: [],
  });
  const cases: Case[] = [
    {
      name: "ion --version (floor)",
      argv: [prepared.ion, "--version"],
      expect: (o) => o.startsWith("ion "),
      times: [],
    },
    words("models (1,000 ids)", ["models", ""], (o) => o.split("\n").length > 1000),
    words("models openai/", ["models", "openai/"], (o) => o.startsWith("openai/")),
    words("sessions (100 of 300)", ["sessions", ""], (o) => o.includes("Session number")),
    words("sessions by prefix", ["sessions", newest.slice(0, 20)], (o) => o.startsWith(newest)),
    words("skills (53)", ["skills", ""], (o) => o.includes("skill-49")),
    words("agents (15)", ["agents", ""], (o) => o.includes("agent-9")),
    words("mcp-servers (5)", ["mcp-servers", ""], (o) => o.includes("server-4")),
    words("config-keys", ["config-keys", ""], (o) => o.includes("thinking")),
  ];
  const failures = new Map<string, string>();
  timeCases(
    cases,
    { cwd: project, env, rounds: options.rounds, warmup: options.warmup, stderrChars: 300 },
    failures,
  );
  process.stdout.write(
    `ion completion --words, ${options.rounds} runs each (target: p95 < ${TARGET_MS} ms)\n\n`,
  );
  const width = Math.max(...cases.map((c) => c.name.length));
  process.stdout.write(`${"case".padEnd(width)}  ${"p50".padStart(8)}  ${"p95".padStart(8)}\n`);
  for (const c of cases) {
    const sorted = [...c.times].sort((a, b) => a - b);
    process.stdout.write(
      `${c.name.padEnd(width)}  ${ms(quantile(sorted, 0.5)).padStart(8)}  ${ms(quantile(sorted, 0.95)).padStart(8)}\n`,
    );
  }
  printFailures(failures);
} finally {
  rmSync(sandbox, { recursive: true, force: true });
}
