/**
 * End to end: a Claude Agent SDK program's in-process MCP server (createSdkMcpServer) joins ion's
 * session, and the model's call reaches it over the control channel.
 */
import { describe, expect, test } from "bun:test";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { all, results, sdkOptions } from "../support/sdk.ts";

const { server, env } = useOpenAIServer("test-key-sdk-mcp");

describe("a Claude Agent SDK program's in-process MCP server on ion", () => {
  test("an in-process createSdkMcpServer tool joins the session and the model calls it", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "mcp__calc__add", input: { a: 2, b: 3 } }],
    });
    server.enqueueReply("openai", { text: "It is 5." });
    const calls: unknown[] = [];
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push({ a, b });
          return { content: [{ type: "text" as const, text: String(a + b) }] };
        }),
      ],
    });
    const messages = await all(
      query({
        prompt: "add 2 and 3",
        options: sdkOptions(box, env, { permissionMode: "bypassPermissions", mcpServers: { calc } }),
      }),
    );
    const init = messages[0] as { tools?: string[]; mcp_servers?: unknown[] };
    expect(init.tools).toContain("mcp__calc__add");
    expect(init.mcp_servers).toContainEqual({ name: "calc", status: "connected" });
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    // The tool's answer reached the model.
    const second = server.requests.at(-1)?.body as { messages?: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages?.at(-1))).toContain("5");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "It is 5." });
  });
});
