/**
 * Custom subagent types from markdown files in Claude Code's format: parsing (tools as a string or a
 * list, Claude Code's tool names, model aliases, unknown keys, malformed files as diagnostics), the
 * directories and their precedence, and a `task` call that starts one against the fake server — its
 * request carries the agent's tools and instructions. Also config `subagents.max_turns` (the child's
 * turn cap) and `subagents.fast_model` (the explorer's model).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { childModel } from "../../src/subagents/child-run.ts";
import { ionToolName, loadCustomAgents, parseAgentFile } from "../../src/subagents/custom-agents.ts";
import { SessionSubagents } from "../../src/subagents/session-subagents.ts";
import { writeWithDirs } from "../support/files.ts";
import { runResultOf, sessionOptions, userBlocks, useSessionSandbox } from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const newSandbox = useSessionSandbox(server, "agents");

/** A sandbox whose project directory is `work`, beside the config and data dirs. */
function sandbox(config: object = {}) {
  const box = newSandbox(config);
  const work = join(box.root, "work");
  mkdirSync(work);
  writeFileSync(join(work, "notes.txt"), "the answer is 42\n");
  return { ...box, work };
}

/** Claude Code's own example of a subagent file (its docs' code-reviewer), with a key ion does not know. */
const CODE_REVIEWER = `---
name: code-reviewer
description: Expert code review specialist. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash
model: inherit
color: purple
---

You are a senior code reviewer ensuring high standards of code quality and security.
`;

const origin = { path: "/x/agents/a.md", source: "user" as const };

describe("agent files", () => {
  test("Claude Code's frontmatter: tools as a comma-separated string of Claude names; unknown keys ignored", () => {
    const agent = parseAgentFile(CODE_REVIEWER, origin);
    if ("error" in agent) throw new Error(agent.error);
    expect(agent.name).toBe("code-reviewer");
    expect(agent.tools).toEqual(["read_file", "grep", "glob", "bash"]);
    expect(agent.model).toBe("inherit");
    expect(agent.disallowedTools).toEqual([]);
    expect(agent.prompt).toBe(
      "You are a senior code reviewer ensuring high standards of code quality and security.",
    );
  });

  test("tools and disallowedTools as YAML lists; no tools = all; ion's names and permission patterns", () => {
    const listed = parseAgentFile(
      "---\nname: lister\ndescription: d\ntools:\n  - LS\n  - read_file\n  - Bash(git diff:*)\ndisallowedTools: [Write, Edit]\nmodel: openai/gpt-4.1-mini\n---\nbody",
      origin,
    );
    if ("error" in listed) throw new Error(listed.error);
    expect(listed.tools).toEqual(["list_files", "read_file", "bash"]);
    expect(listed.disallowedTools).toEqual(["write_file", "edit_file"]);
    expect(listed.model).toBe("openai/gpt-4.1-mini");
    const open = parseAgentFile("---\ndescription: no name, no tools\n---\nbody", {
      path: "/x/agents/from-file.md",
      source: "user",
    });
    if ("error" in open) throw new Error(open.error);
    expect(open.name).toBe("from-file");
    expect(open.tools).toBeUndefined();
    expect(ionToolName("WebFetch")).toBe("web_fetch");
    expect(ionToolName("mcp__github__list")).toBe("mcp__github__list");
  });

  test("malformed files are errors with a reason", () => {
    const error = (text: string) => {
      const parsed = parseAgentFile(text, origin);
      return "error" in parsed ? parsed.error : "parsed";
    };
    expect(error("just markdown")).toContain("no frontmatter");
    expect(error("---\nname: a\n")).toContain("no closing");
    expect(error("---\nname: [unclosed\n---\n")).toContain("invalid YAML");
    expect(error("---\nname: a\ntools: 3\n---\n")).toContain("tools: expected");
    expect(error("---\nname: has space\n---\n")).toContain("name:");
    expect(error("---\n- a list\n---\n")).toContain("mapping");
  });

  test("directories: .ion/agents beats .claude/agents beats the user's; bad files are diagnostics", () => {
    const box = sandbox();
    writeWithDirs(join(box.configDir, "agents", "shared.md"), "---\nname: shared\ndescription: user\n---\n");
    writeWithDirs(join(box.configDir, "agents", "mine.md"), "---\nname: mine\ndescription: user only\n---\n");
    writeWithDirs(
      join(box.work, ".claude", "agents", "shared.md"),
      "---\nname: shared\ndescription: claude\n---\n",
    );
    writeWithDirs(join(box.work, ".claude", "agents", "reviewer2.md"), CODE_REVIEWER);
    writeWithDirs(
      join(box.work, ".ion", "agents", "shared.md"),
      "---\nname: shared\ndescription: ion\n---\n",
    );
    writeWithDirs(join(box.work, ".ion", "agents", "broken.md"), "---\ntools: {a: 1}\n---\n");
    writeWithDirs(join(box.work, ".ion", "agents", "notes.txt"), "not an agent");
    writeWithDirs(join(box.root, "secret.md"), "---\nname: secret\n---\n");
    symlinkSync(join(box.root, "secret.md"), join(box.work, ".claude", "agents", "secret.md"));

    const { items, diagnostics } = loadCustomAgents({ cwd: box.work, env: box.env });
    expect(items.map((a) => [a.name, a.source, a.description])).toEqual([
      [
        "code-reviewer",
        "project",
        "Expert code review specialist. Use immediately after writing or modifying code.",
      ],
      ["mine", "user", "user only"],
      ["shared", "project", "ion"],
    ]);
    expect(diagnostics.map((d) => d.path)).toEqual([
      join(box.work, ".ion", "agents", "broken.md"),
      join(box.work, ".claude", "agents", "secret.md"),
    ]);
    expect(diagnostics[0]?.message).toContain("tools: expected");
    expect(diagnostics[1]?.message).toContain("outside the project");
    expect(diagnostics[1]?.refused).toBe(true);
  });

  test("a child's model: inherit and Claude's aliases are the parent's; provider/model of the parent's provider", () => {
    expect(childModel(undefined, "openai", "gpt-4o")).toBe("gpt-4o");
    expect(childModel("inherit", "openai", "gpt-4o")).toBe("gpt-4o");
    expect(childModel("sonnet", "openai", "gpt-4o")).toBe("gpt-4o");
    expect(childModel("openai/gpt-4.1-mini", "openai", "gpt-4o")).toBe("gpt-4.1-mini");
    expect(childModel("gpt-4.1-mini", "openai", "gpt-4o")).toBe("gpt-4.1-mini");
    expect(childModel("anthropic/claude-haiku-4-5", "openai", "gpt-4o")).toBe("gpt-4o");
  });
});

function options(box: ReturnType<typeof sandbox>): SessionOptions {
  return sessionOptions(box, { cwd: box.work, yes: true, extensions: [new SessionSubagents()] });
}

type Body = {
  model: string;
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
};
const bodyOf = (i: number) => server.requests[i]?.body as Body;
const toolNames = (i: number) => bodyOf(i).tools?.map((t) => t.function.name) ?? [];
const toolResultText = (i: number) => String(bodyOf(i).messages.find((m) => m.role === "tool")?.content);

function enqueueTask(input: Record<string, unknown>) {
  server.enqueueReply("openai", {
    toolCalls: [
      {
        id: "call_task",
        name: "task",
        input: { description: "review it", prompt: "Review notes.txt", ...input },
      },
    ],
  });
}

describe("task with custom agents and subagents config", () => {
  test("a .claude/agents file: the child gets the agent's tools and instructions", async () => {
    const box = sandbox();
    writeWithDirs(join(box.work, ".claude", "agents", "code-reviewer.md"), CODE_REVIEWER);
    const session = await AgentSession.open(options(box));
    enqueueTask({ subagent_type: "code-reviewer" });
    server.enqueueReply("openai", { text: "LGTM" });
    server.enqueueReply("openai", { text: "The reviewer says LGTM." });
    const events = await collectEvents(session.turn(userBlocks("review"), new AbortController().signal));
    await session.close();

    expect(runResultOf(events).is_error).toBe(false);
    expect(server.requests).toHaveLength(3);
    expect(toolNames(1).sort()).toEqual(["bash", "glob", "grep", "read_file"]);
    const system = JSON.stringify(bodyOf(1).messages[0]);
    expect(system).toContain("You are a subagent (code-reviewer)");
    expect(system).toContain("You are a senior code reviewer");
    expect(bodyOf(1).model).toBe("gpt-4o-mini");
    expect(toolResultText(2)).toContain("LGTM");
  });

  test("resume keeps a custom child's type (instructions and tools); naming another type is an error", async () => {
    const box = sandbox();
    writeWithDirs(join(box.work, ".claude", "agents", "code-reviewer.md"), CODE_REVIEWER);
    const session = await AgentSession.open(options(box));
    enqueueTask({ subagent_type: "code-reviewer" });
    server.enqueueReply("openai", { text: "LGTM" });
    server.enqueueReply("openai", {
      toolCalls: [
        {
          id: "call_more",
          name: "task",
          input: { description: "more", prompt: "Anything else?", resume: "call_task" },
        },
        {
          id: "call_wrong",
          name: "task",
          input: { description: "x", prompt: "y", resume: "call_task", subagent_type: "general" },
        },
      ],
    });
    server.enqueueReply("openai", { text: "Nothing else." });
    server.enqueueReply("openai", { text: "Done." });
    await collectEvents(session.turn(userBlocks("review"), new AbortController().signal));
    await session.close();

    // Parent, child, parent, resumed child, parent: the wrong-type call made no request.
    expect(server.requests).toHaveLength(5);
    expect(toolNames(3).sort()).toEqual(["bash", "glob", "grep", "read_file"]);
    const system = JSON.stringify(bodyOf(3).messages[0]);
    expect(system).toContain("You are a subagent (code-reviewer)");
    expect(system).toContain("You are a senior code reviewer");
    expect(JSON.stringify(bodyOf(3).messages)).toContain("LGTM");
    const results = bodyOf(4)
      .messages.filter((m) => m.role === "tool")
      .map((m) => String(m.content));
    expect(results.at(-2)).toContain("task id: call_more");
    expect(results.at(-1)).toBe(
      "task: subagent call_task is a code-reviewer, not a general; resume it without subagent_type, or start a new general without resume",
    );
  });

  test("an unknown type: the result lists the built-in and custom types; no child request", async () => {
    const box = sandbox();
    writeWithDirs(
      join(box.configDir, "agents", "scribe.md"),
      "---\nname: scribe\ndescription: Writes docs\n---\n",
    );
    const session = await AgentSession.open(options(box));
    enqueueTask({ subagent_type: "nobody" });
    server.enqueueReply("openai", { text: "ok" });
    await collectEvents(session.turn(userBlocks("go"), new AbortController().signal));
    await session.close();
    expect(server.requests).toHaveLength(2);
    const result = toolResultText(1);
    expect(result).toContain("no subagent type nobody");
    expect(result).toContain("explorer");
    expect(result).toContain("- scribe: Writes docs");
  });

  test("subagents.max_turns caps the child's requests; subagents.fast_model is the explorer's model", async () => {
    const box = sandbox({ subagents: { max_turns: 2, fast_model: "openai/gpt-4.1-mini" } });
    const session = await AgentSession.open(options(box));
    enqueueTask({});
    for (const id of ["call_r1", "call_r2", "call_r3"])
      server.enqueueReply("openai", { toolCalls: [{ id, name: "read_file", input: { path: "notes.txt" } }] });
    server.enqueueReply("openai", { text: "done" });
    const events = await collectEvents(session.turn(userBlocks("go"), new AbortController().signal));
    await session.close();

    expect(runResultOf(events).is_error).toBe(false);
    // Parent, two child requests (the cap), then the parent again with the child's failure as the result.
    expect(bodyOf(1).model).toBe("gpt-4.1-mini");
    expect(bodyOf(2).model).toBe("gpt-4.1-mini");
    expect(bodyOf(3).model).toBe("gpt-4o-mini");
    expect(toolResultText(3)).toContain("subagent failed (error_max_turns)");
  });
});
