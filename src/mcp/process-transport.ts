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

  /** Resolves once the process runs (at once if it already does); rejects with the spawn's error. */
  async start(): Promise<void> {
    if (this.started) throw new Error("ProcessTransport already started");
    this.started = true;
    await this.server.spawned;
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

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.server.child.stdin;
    if (!this.open || !stdin) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const { child } = this.server;
    const wasOpen = this.open;
    this.open = false;
    this.readBuffer.clear();
    if (!wasOpen || this.server.closed) return;
    const ended = new Promise<void>((resolve) => child.once("close", () => resolve()));
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
    child.stdin?.end();
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
