import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ControlChannel } from "./channel.ts";

/**
 * An MCP transport to a Claude Agent SDK program's in-process server: each message goes out as an
 * `mcp_message` control request and the server's reply comes back in its `mcp_response`, so ion's
 * MCP client (src/mcp) talks to it as to any other server.
 */
export class ControlMcpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(
    private readonly channel: ControlChannel,
    private readonly server: string,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`the connection to MCP server "${this.server}" is closed`);
    const id = "id" in message && "method" in message ? message.id : undefined;
    const reply = this.channel.request({ subtype: "mcp_message", server_name: this.server, message });
    // Not awaited: the client waits for its answer through onmessage, as on any transport.
    reply.then(
      (answer) => {
        // A notification's reply is only an acknowledgement.
        if (id === undefined || this.closed) return;
        const response = answer.mcp_response;
        if (typeof response === "object" && response !== null) this.onmessage?.(response as JSONRPCMessage);
        else this.fail(id, `MCP server "${this.server}" sent no mcp_response`);
      },
      (err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        if (id === undefined) this.onerror?.(new Error(why));
        else this.fail(id, why);
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** The request failed on the way: its caller gets a JSON-RPC error at once, not a timeout. */
  private fail(id: string | number, message: string): void {
    if (this.closed) return;
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message } });
  }
}
