import { expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ControlChannel, type JsonObject } from "../../src/sdk/channel.ts";
import { ControlMcpTransport } from "../../src/sdk/mcp-transport.ts";
import { programStdin } from "../support/program-stdin.ts";

/** A channel whose stdin the test feeds with the program's answers. */
function wired() {
  const written: JsonObject[] = [];
  const { stdin, send: answer } = programStdin();
  const channel = new ControlChannel(
    (line) => written.push(line),
    () => {},
  );
  void channel.pump(stdin);
  return { channel, written, answer };
}

test("a request goes out as mcp_message and its mcp_response comes back through onmessage", async () => {
  const { channel, written, answer } = wired();
  const transport = new ControlMcpTransport(channel, "calc");
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  expect(written[0]).toMatchObject({
    type: "control_request",
    request: { subtype: "mcp_message", server_name: "calc", message: { id: 1, method: "tools/list" } },
  });
  const reply: JSONRPCMessage = { jsonrpc: "2.0", id: 1, result: { tools: [] } };
  answer({
    type: "control_response",
    response: { subtype: "success", request_id: written[0]?.request_id, response: { mcp_response: reply } },
  });
  await Bun.sleep(5);
  expect(received).toEqual([reply]);
});

test("a request the program answers with an error is a JSON-RPC error at once, not a timeout", async () => {
  const { channel, written, answer } = wired();
  const transport = new ControlMcpTransport(channel, "gone");
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x" } });
  answer({
    type: "control_response",
    response: {
      subtype: "error",
      request_id: written[0]?.request_id,
      error: "SDK MCP server not found: gone",
    },
  });
  await Bun.sleep(5);
  expect(received).toEqual([
    { jsonrpc: "2.0", id: 7, error: { code: -32603, message: "SDK MCP server not found: gone" } },
  ]);
});
