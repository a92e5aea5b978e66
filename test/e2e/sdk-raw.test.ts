/**
 * End to end: Claude Code's print-mode command line and control protocol driven with raw lines — the
 * invocation shape, and a control request ion does not support (answered with an error naming it).
 */
import { describe, expect, test } from "bun:test";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const { server, env } = useOpenAIServer("test-key-sdk-raw");

describe("ion as Claude Code's print mode", () => {
  test("ion -p PROMPT is ion run (Claude Code's print mode); flags that mean nothing to ion are no usage error", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Printed." });
    const run = await box.run(
      ["-p", "say it", "--output-format=json", "--model=openai/gpt-4o", "--setting-sources=", "--betas=x,y"],
      { env },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: "result", subtype: "success", result: "Printed." });
  });

  test("an unsupported control request gets an error response naming it; the run goes on", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Still here." });
    const lines = [
      { type: "control_request", request_id: "r1", request: { subtype: "initialize" } },
      { type: "control_request", request_id: "r2", request: { subtype: "rewind_files" } },
      {
        type: "control_request",
        request_id: "r3",
        request: { subtype: "set_permission_mode", mode: "plan" },
      },
      { type: "control_request", request_id: "r4", request: { subtype: "mcp_status" } },
      { type: "user", message: { role: "user", content: "hello" } },
    ];
    const run = await box.run(
      [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
        "--model=openai/gpt-4o",
      ],
      { env, stdin: lines.map((l) => JSON.stringify(l)).join("\n") + "\n" },
    );
    expect(run.code).toBe(0);
    const out = jsonLines(run.stdout);
    expect(out).toContainEqual({
      type: "control_response",
      response: { subtype: "error", request_id: "r2", error: "unsupported control request: rewind_files" },
    });
    expect(
      out.find(
        (l) => l.type === "control_response" && (l.response as { request_id?: string }).request_id === "r1",
      ),
    ).toMatchObject({
      response: { subtype: "success" },
    });
    const answer = (id: string) =>
      out.find(
        (l) => l.type === "control_response" && (l.response as { request_id?: string }).request_id === id,
      );
    expect(answer("r3")).toMatchObject({ response: { subtype: "success" } });
    expect(answer("r4")).toMatchObject({ response: { subtype: "success", response: { mcpServers: [] } } });
    // set_permission_mode plan took effect: the tools offered are the read-only ones.
    const tools =
      (server.requests.at(-1)?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? [];
    expect(tools.map((t) => t.function.name)).not.toContain("bash");
    expect(tools.map((t) => t.function.name)).toContain("read_file");
    expect(out.at(-1)).toMatchObject({ type: "result", result: "Still here." });
  });
});
