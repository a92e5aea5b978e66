/**
 * The SDK's stdio transport over a server process that is already running (stdio-process.ts): the
 * same framing as StdioClientTransport (the SDK's ReadBuffer and serializeMessage: one JSON-RPC
 * message a line), the same close (stdin ended, then SIGTERM, then SIGKILL), only not the spawn.
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioServerProcess } from "./stdio-process.ts";

/** How long each step of closing waits for the process, as StdioClientTransport does. */
const CLOSE_STEP_MS = 2000;

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly readBuffer = new ReadBuffer();
  private started = false;
  private open = false;

  constructor(private readonly server: StdioServerProcess) {}

  /** The process runs already: listens to it; rejects with the spawn's error if it could not start. */
  async start(): Promise<void> {
    if (this.started) throw new Error("ProcessTransport already started");
    this.started = true;
    if (this.server.child === undefined) throw this.server.spawnError;
    this.open = true;
    this.server.listen({
      data: (chunk) => this.received(chunk),
      error: (error) => this.onerror?.(error),
      close: () => {
        this.open = false;
        this.onclose?.();
      },
    });
  }

  private received(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      // More than the SDK's buffer limit without a line end: the server is broken.
      this.onerror?.(asError(error));
      void this.close();
      return;
    }
    for (;;) {
      try {
        const message = this.readBuffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(asError(error)); // one bad line; the next may be fine
      }
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.server.child?.stdin;
    if (!this.open || !stdin) throw new Error("Not connected");
    try {
      stdin.write(serializeMessage(message));
      await stdin.flush();
    } catch (error) {
      // The server is gone (EPIPE): its end is told by onclose; this is the SDK's onerror for it.
      this.onerror?.(asError(error));
    }
  }

  async close(): Promise<void> {
    const { child } = this.server;
    const wasOpen = this.open;
    this.open = false;
    this.readBuffer.clear();
    if (!wasOpen || !child || this.server.closed) return;
    const ended = child.exited.then(() => undefined);
    // Unref'd and cleared: waiting here must never keep ion running.
    const step = async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_STEP_MS);
        timer.unref();
      });
      await Promise.race([ended, late]);
      clearTimeout(timer);
    };
    try {
      await child.stdin.end();
    } catch (error) {
      this.onerror?.(asError(error)); // already closed by the server: it is ending anyway
    }
    await step();
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await step();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
