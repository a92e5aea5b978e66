/**
 * A small stdio MCP server for the tests, built on the SDK's server API: TOOL_COUNT numbered tools
 * (default 220) with sizeable schemas, plus names that need sanitising or clash after it. Each call
 * answers with its name and arguments. With SPAWN_CHILD=1 it starts a `sleep` child that would outlive
 * it unless its client ends the whole process tree.
 */
import { spawn } from "node:child_process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

const TOPICS = ["weather forecast", "invoice totals", "calendar events", "git history", "image resize"];

export const SPECIAL_NAMES = [
  "weird.name",
  "weird_name",
  `long_${"x".repeat(70)}_one`,
  `long_${"x".repeat(70)}_two`,
];

function numbered(index: number): Tool {
  const topic = TOPICS[index % TOPICS.length] ?? "misc";
  return {
    name: `tool_${String(index).padStart(3, "0")}`,
    description: `Handles ${topic} requests, variant ${index}. Returns the arguments it was given.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: `What to look up about ${topic}` },
        limit: { type: "integer", description: "How many results at most" },
        verbose: { type: "boolean", description: "Whether to include every detail" },
      },
      required: ["query"],
    },
    annotations: { readOnlyHint: index % 2 === 0 },
  };
}

const count = Number(process.env.TOOL_COUNT ?? "220");
const tools: Tool[] = [
  ...Array.from({ length: count }, (_, index) => numbered(index)),
  ...SPECIAL_NAMES.map((name) => ({
    name,
    description: `The tool called ${name}`,
    inputSchema: { type: "object" as const },
  })),
];

if (process.env.SPAWN_CHILD === "1") spawn("sleep", ["300"], { stdio: "ignore" });

const server = new Server({ name: "many-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [
    {
      type: "text",
      text: `called ${request.params.name} with ${JSON.stringify(request.params.arguments ?? {})}`,
    },
  ],
}));
await server.connect(new StdioServerTransport());
console.error("many-tools server ready");
