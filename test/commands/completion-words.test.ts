import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { completionWords, MAX_SESSIONS, wordLines } from "../../src/completion/words.ts";
import { SessionStore } from "../../src/history/store.ts";
import { Sandbox } from "../support/cli.ts";
import { writeWithDirs } from "../support/files.ts";

const boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) box[Symbol.dispose]();
});

function sandbox() {
  const box = new Sandbox();
  boxes.push(box);
  const env = box.env();
  return { box, env, context: { env, cwd: box.workspace } };
}

/** A catalogue cache as `ion models` writes it (catalog.ts, version 1), written two days ago. */
function writeCatalog(
  env: Record<string, string>,
  models: { id: string; name: string; configured: boolean }[],
) {
  const file = join(env.XDG_CACHE_HOME!, "ion/models.json");
  const entries = models.map((m) => {
    const [provider, ...rest] = m.id.split("/");
    return { ...m, provider, model: rest.join("/"), context: null, output: null };
  });
  const fetched = new Date(Date.now() - 2 * 86_400_000).toISOString();
  writeWithDirs(
    file,
    JSON.stringify({
      version: 1,
      fetched_at: fetched,
      key: "k",
      configured: [],
      complete: true,
      models: entries,
    }),
  );
}

async function makeSession(dataDir: string, title: string): Promise<string> {
  const writer = await SessionStore.forDataDir(dataDir).create({
    cwd: "/w",
    provider: "openai",
    model: "gpt-4o",
    title,
  });
  await writer.close();
  return writer.id;
}

describe("ion completion --words", () => {
  test("models: the configured providers' ids from the cache, at any age, filtered by prefix", async () => {
    const { env, context } = sandbox();
    writeCatalog(env, [
      { id: "openai/gpt-4o", name: "GPT-4o", configured: true },
      { id: "openai/gpt-4o-mini", name: "GPT-4o mini", configured: true },
      { id: "ollama/llama3:8b", name: "llama3:8b", configured: true },
      { id: "anthropic/claude-x", name: "Claude X", configured: false },
    ]);
    expect(await completionWords("models", "", context)).toEqual([
      { value: "openai/gpt-4o", description: "GPT-4o" },
      { value: "openai/gpt-4o-mini", description: "GPT-4o mini" },
      { value: "ollama/llama3:8b", description: "" },
    ]);
    expect((await completionWords("models", "openai/gpt-4o-", context)).map((w) => w.value)).toEqual([
      "openai/gpt-4o-mini",
    ]);
  });

  test("models: every provider's when none is configured; nothing without a cache (no network)", async () => {
    const { env, context } = sandbox();
    expect(await completionWords("models", "", context)).toEqual([]);
    writeCatalog(env, [{ id: "anthropic/claude-x", name: "Claude X", configured: false }]);
    expect(await completionWords("models", "", context)).toEqual([
      { value: "anthropic/claude-x", description: "Claude X" },
    ]);
  });

  test("sessions: ids newest first with their titles, control characters taken out of a title", async () => {
    const { box, context } = sandbox();
    const first = await makeSession(box.dataDir, "Fix the login bug");
    const second = await makeSession(box.dataDir, "Evil \x1b]0;title\x07 and\nmore");
    expect(await completionWords("sessions", "", context)).toEqual([
      { value: second, description: "Evil and more" },
      { value: first, description: "Fix the login bug" },
    ]);
    expect(await completionWords("sessions", first, context)).toEqual([
      { value: first, description: "Fix the login bug" },
    ]);
  });

  test("sessions: at most the newest MAX_SESSIONS; an unreadable file still offers its id", async () => {
    const { box, context } = sandbox();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS + 5; i++) ids.push(await makeSession(box.dataDir, `s${i}`));
    const words = await completionWords("sessions", "", context);
    expect(words).toHaveLength(MAX_SESSIONS);
    expect(words[0]).toEqual({ value: ids.at(-1)!, description: `s${MAX_SESSIONS + 4}` });
    const broken = join(box.dataDir, "sessions", `${ids.at(-1)}.jsonl.zst`);
    writeWithDirs(broken, "not zstd");
    utimesSync(broken, new Date(), new Date());
    expect((await completionWords("sessions", ids.at(-1)!, context))[0]).toEqual({
      value: ids.at(-1)!,
      description: "",
    });
  });

  test("skills and agents: built-in and the project's and user's, by name", async () => {
    const { box, context } = sandbox();
    writeWithDirs(
      join(box.workspace, ".ion/skills/release-notes/SKILL.md"),
      "---\nname: release-notes\ndescription: Write release notes.\n---\nbody\n",
    );
    writeWithDirs(
      join(box.configDir, "agents/triage.md"),
      "---\nname: triage\ndescription: Sort the issues.\n---\nYou sort issues.\n",
    );
    const skills = await completionWords("skills", "", context);
    expect(skills.map((s) => s.value)).toEqual(["designer", "developer", "refactor", "release-notes"]);
    expect(skills.at(-1)).toEqual({ value: "release-notes", description: "Write release notes." });
    const agents = await completionWords("agents", "", context);
    expect(agents.map((a) => a.value)).toEqual([
      "explorer",
      "designer",
      "reviewer",
      "researcher",
      "general",
      "triage",
    ]);
    expect(await completionWords("agents", "tr", context)).toEqual([
      { value: "triage", description: "Sort the issues." },
    ]);
  });

  test("mcp-servers: the user's servers and, named only, an untrusted project's", async () => {
    const { box, context } = sandbox();
    await box.writeConfig({ mcpServers: { docs: { command: "true" } } });
    mkdirSync(join(box.workspace, ".git"));
    writeWithDirs(
      join(box.workspace, ".mcp.json"),
      JSON.stringify({ mcpServers: { repo: { command: "true" } } }),
    );
    const words = await completionWords("mcp-servers", "", context);
    expect(words.map((w) => w.value)).toEqual(["docs", "repo"]);
    expect(words[1]!.description).toStartWith("project · ");
  });

  test("config-keys: one level at a time", async () => {
    const { context } = sandbox();
    const top = (await completionWords("config-keys", "th", context)).map((w) => w.value);
    expect(top).toContain("thinking");
    const memory = (await completionWords("config-keys", "memory.", context)).map((w) => w.value);
    expect(memory).toContain("memory.enabled");
    expect(memory.every((key) => key.startsWith("memory."))).toBe(true);
  });

  test("an unknown kind is a usage error; lines are value<TAB>description", async () => {
    const { context } = sandbox();
    await expect(completionWords("planets", "", context)).rejects.toThrow(
      /unknown completion kind "planets"/,
    );
    expect(
      wordLines([
        { value: "a", description: "" },
        { value: "b", description: "B b" },
      ]),
    ).toBe("a\nb\tB b\n");
  });
});
