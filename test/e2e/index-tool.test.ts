/**
 * End to end: the `symbols` tool in a run against the fake server — the model's call finds the
 * definition's file and line (the next request carries it), an edit made by write_file one step
 * earlier is in the answer, and nothing of the index loads for a run that does not call the tool.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, type WireMessage } from "../support/e2e.ts";
import type { RecordedRequest } from "../support/fake-llm.ts";

const KEY = "test-key-index-tool-123";
const MODEL = "openai/gpt-4o-mini";
const { server, env } = useOpenAIServer(KEY);

const RETRY = `export async function withRetry<T>(run: () => Promise<T>, times = 3): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= times) throw err;
    }
  }
}
`;
const CLIENT = `import { withRetry } from "./retry.ts";

export async function fetchUser(id: string) {
  return withRetry(() => fetch("/users/" + id));
}
`;

async function project(box: Sandbox): Promise<void> {
  await Bun.write(join(box.workspace, "src/retry.ts"), RETRY);
  await Bun.write(join(box.workspace, "src/client.ts"), CLIENT);
  await box.writeConfig({ model: MODEL });
}

/** The tool results a request carried back, by call id. */
function toolResults(request: RecordedRequest | undefined): Record<string, string> {
  const messages = (request?.body as { messages: WireMessage[] } | undefined)?.messages ?? [];
  return Object.fromEntries(
    messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id ?? "", String(m.content)]),
  );
}

describe("the symbols tool in a run", () => {
  test("the model's lookup gets the definition's file and line, and who calls it", async () => {
    using box = new Sandbox();
    await project(box);
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_def", name: "symbols", input: { action: "definition", name: "withRetry" } },
        { id: "call_refs", name: "symbols", input: { action: "references", name: "withRetry" } },
      ],
    });
    server.enqueueReply("openai", { text: "withRetry is in src/retry.ts at line 1." });
    const run = await box.run(["run", "where is the retry logic and who calls it?"], { env });
    expect(run.stderr).toBe("");
    expect(run).toMatchObject({ code: 0, stdout: "withRetry is in src/retry.ts at line 1.\n" });
    const offered = (server.requests[from]?.body ?? {}) as { tools?: { function: { name: string } }[] };
    expect((offered.tools ?? []).map((t) => t.function.name)).toContain("symbols");
    const results = toolResults(server.requests[from + 1]);
    expect(results.call_def).toContain(
      "src/retry.ts:1  function  export async function withRetry<T>(run: () => Promise<T>, times = 3): Promise<T> {  (lines 1-9)",
    );
    expect(results.call_refs).toContain(
      'src/client.ts:4  call  in fetchUser: return withRetry(() => fetch("/users/" + id));',
    );
  });

  test("a file written with write_file one step earlier is in the next lookup", async () => {
    using box = new Sandbox();
    await project(box);
    // An index built before the edit: the lookup must refresh it, not answer from it.
    expect((await box.run(["index"], { env })).code).toBe(0);
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [
        {
          id: "call_write",
          name: "write_file",
          input: {
            path: "src/retry.ts",
            content: `// retries\n\n${RETRY.replace("withRetry", "retryWithBackoff")}`,
          },
        },
      ],
    });
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_look", name: "symbols", input: { action: "definition", name: "retryWithBackoff" } },
      ],
    });
    server.enqueueReply("openai", { text: "done" });
    const run = await box.run(["run", "-y", "rename withRetry and find it"], { env });
    expect(run.code).toBe(0);
    expect(toolResults(server.requests[from + 2]).call_look).toStartWith(
      "src/retry.ts:3  function  export async function retryWithBackoff<T>",
    );
  });
});

/**
 * Which of ion's source modules a run loaded: a preload script writes require.cache's keys at exit.
 * Only from source (a compiled binary has no preload), so the test runs ion with Bun itself.
 */
describe("start-up: nothing of the index loads unless the model calls symbols", () => {
  const ROOT = resolve(import.meta.dir, "../..");

  async function loadedBy(box: Sandbox, args: string[]): Promise<string[]> {
    const list = join(box.root, "loaded.txt");
    const preload = join(box.root, "trace.ts");
    await Bun.write(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n")));\n`,
    );
    const child = Bun.spawn([process.execPath, "--preload", preload, join(ROOT, "src/main.ts"), ...args], {
      cwd: box.workspace,
      env: box.env(env),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await child.exited).toBe(0);
    return readFileSync(list, "utf8").split("\n");
  }

  const indexModules = (loaded: string[]) =>
    loaded.filter((path) =>
      /src\/code-index\/|src\/tools\/symbols\.ts|web-tree-sitter|tree-sitter-/.test(path),
    );

  test("--version, --help and a run that does not call it load none of it; a run that does, does", async () => {
    using box = new Sandbox();
    await project(box);
    expect(indexModules(await loadedBy(box, ["--version"]))).toEqual([]);
    expect(indexModules(await loadedBy(box, ["--help"]))).toEqual([]);
    server.enqueueReply("openai", { toolCalls: [{ name: "grep", input: { pattern: "withRetry" } }] });
    server.enqueueReply("openai", { text: "found it" });
    expect(indexModules(await loadedBy(box, ["run", "find withRetry"]))).toEqual([]);

    server.enqueueReply("openai", {
      toolCalls: [{ name: "symbols", input: { action: "definition", name: "withRetry" } }],
    });
    server.enqueueReply("openai", { text: "found it" });
    const withTool = indexModules(await loadedBy(box, ["run", "find withRetry"]));
    expect(withTool.some((path) => path.endsWith("src/code-index/store.ts"))).toBe(true);
    expect(withTool.some((path) => path.includes("web-tree-sitter"))).toBe(true);
  });
});
