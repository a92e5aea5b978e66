/**
 * End to end: what `ion run` puts in the system prompt. AGENTS.md layers from the real fixtures reach
 * the request in order; a skill's body enters only with `--skill` (or when the model calls the `skill`
 * tool); the prompt is byte-identical across runs; `-v` tells what fills the window.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { writeWithDirs } from "../support/files.ts";
import { parseStreamJson } from "../support/output-schemas.ts";

const { server, env } = useOpenAIServer("test-key-run-context");
const FIXTURES = join(import.meta.dir, "../../../shared/fixtures/agents");
const MODEL = ["-m", "openai/gpt-4o-mini"];

type Body = { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };
const system = (i: number) => (server.requests[i]!.body as Body).messages[0]!.content;

function repo(box: Sandbox): string {
  // A git repository with AGENTS.md at its root and CLAUDE.md (no AGENTS.md) in a subdirectory.
  mkdirSync(join(box.workspace, ".git"), { recursive: true });
  writeFileSync(join(box.workspace, ".git/HEAD"), "ref: refs/heads/main\n");
  writeWithDirs(
    join(box.workspace, "AGENTS.md"),
    readFileSync(join(FIXTURES, "AGENTS.md--anomalyco-models.dev.md"), "utf8"),
  );
  writeWithDirs(
    join(box.workspace, "pkg/CLAUDE.md"),
    readFileSync(join(FIXTURES, "AGENTS.md--ollama-ollama.md"), "utf8"),
  );
  writeWithDirs(join(box.configDir, "AGENTS.md"), "Always answer in English.\n");
  writeWithDirs(
    join(box.configDir, "skills/release-notes/SKILL.md"),
    "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nGROUP-CHANGES-BY-TYPE\n",
  );
  return join(box.workspace, "pkg");
}

describe("the system prompt of ion run", () => {
  test("instruction layers in order; the skills index lists names; a skill body only with --skill", async () => {
    using box = new Sandbox();
    const cwd = repo(box);
    server.enqueueReply("openai", { text: "ok" });
    const plain = await box.run(["run", ...MODEL, "-o", "stream-json", "hi"], { env, cwd });
    expect(plain.code).toBe(0);
    const first = system(server.requests.length - 1);
    const order = ["Always answer in English.", "models.dev", "ollama"].map((text) => first.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(first).toContain("release-notes");
    expect(first).not.toContain("GROUP-CHANGES-BY-TYPE");
    const { init } = parseStreamJson(jsonLines(plain.stdout));
    expect(init.skills).toContain("release-notes");

    server.enqueueReply("openai", { text: "ok" });
    const again = await box.run(["run", ...MODEL, "hi"], { env, cwd });
    expect(again.code).toBe(0);
    expect(system(server.requests.length - 1)).toBe(first);

    server.enqueueReply("openai", { text: "ok" });
    const skilled = await box.run(["run", ...MODEL, "--skill", "release-notes", "hi"], { env, cwd });
    expect(skilled.code).toBe(0);
    const withSkill = system(server.requests.length - 1);
    expect(withSkill).toContain("GROUP-CHANGES-BY-TYPE");
    // The active skill is last: after every instruction file.
    expect(withSkill.indexOf("GROUP-CHANGES-BY-TYPE")).toBeGreaterThan(withSkill.indexOf("ollama"));
  });

  test("--skill with an unknown name is a usage error with a suggestion, before any request", async () => {
    using box = new Sandbox();
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "--skill", "developr", "hi"], { env });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('unknown skill "developr"');
    expect(run.stderr).toContain("developer");
    expect(server.requests.length).toBe(before);
  });

  test("the skill tool gives the model a skill's body", async () => {
    using box = new Sandbox();
    writeWithDirs(join(box.configDir, "skills/notes.md"), "# Notes\n\nNOTES-BODY-TEXT\n");
    server.enqueueReply("openai", { toolCalls: [{ id: "call_s", name: "skill", input: { name: "notes" } }] });
    server.enqueueReply("openai", { text: "done" });
    const run = await box.run(["run", ...MODEL, "use notes"], { env });
    expect(run.code).toBe(0);
    const body = server.requests.at(-1)!.body as Body;
    const toolMessage = body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toContain("NOTES-BODY-TEXT");
    expect(system(server.requests.length - 1)).not.toContain("NOTES-BODY-TEXT");
  });

  test("-v tells what fills the window, part by part", async () => {
    using box = new Sandbox();
    const cwd = repo(box);
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(["run", ...MODEL, "-v", "hi"], { env, cwd });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/context: \d+ tokens/);
    expect(run.stderr).toMatch(/ {2}system prompt: \d+/);
    expect(run.stderr).toContain(join(box.workspace, "AGENTS.md"));
    expect(run.stderr).toMatch(/ {2}skills index: \d+/);
    expect(run.stderr).toMatch(/ {2}tools: \d+/);
    expect(run.stderr).toMatch(/ {2}history: \d+/);
  });
});
