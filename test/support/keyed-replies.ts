/**
 * Replies queued per API key on one shared fake server, so tests that run ion in several terminals at
 * once (each with its own key) never take each other's replies.
 */
import type { FakeLLM, FakeResponse, RecordedRequest } from "./fake-llm.ts";

/** The key a request was sent with (its bearer token). */
export function keyOf(request: RecordedRequest): string {
  return (request.headers.authorization ?? "").replace(/^Bearer /, "");
}

export class KeyedReplies {
  private readonly queues = new Map<string, FakeResponse[]>();

  constructor(private readonly server: FakeLLM) {}

  open(key: string): void {
    this.queues.set(key, []);
  }

  close(key: string): void {
    this.queues.delete(key);
  }

  /** Queues `response` for the next chat request made with `key`. */
  push(key: string, response: FakeResponse): void {
    this.queues.get(key)?.push(response);
    this.server.enqueue({
      pathSuffix: "/chat/completions",
      respond: (request) =>
        this.queues.get(keyOf(request))?.shift() ?? {
          status: 599,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ error: { message: "fake server: nothing queued for this key" } }),
        },
    });
  }
}
