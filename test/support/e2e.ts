/**
 * Set-up shared by the e2e files that run ion against one fake OpenAI-wire server for the whole file.
 */
import { beforeAll, expect } from "bun:test";
import type { Sandbox } from "./cli.ts";
import type { FakeLLM } from "./fake-llm.ts";
import { FIXTURES, type RecordedRequest } from "./fake-llm.ts";
import { useFakeLLM } from "./stream-helpers.ts";

export interface OpenAIServer {
  /** The file's fake server: forwards to the running one, so use it from tests and hooks only. */
  server: FakeLLM;
  /** `OPENAI_BASE_URL` and `OPENAI_API_KEY` pointing ion at the server; filled in before the file's tests. */
  env: Record<string, string>;
}

/**
 * Starts a fake LLM before the file's tests and stops it after them, with the env that sends ion's
 * `openai` provider to it with `key`, plus whatever `extra` adds for the server's URL.
 */
export function useOpenAIServer(
  key: string,
  extra: (url: string) => Record<string, string> = () => ({}),
): OpenAIServer {
  const server = useFakeLLM();
  const env: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(env, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: key, ...extra(server.url) });
  });
  return { server, env };
}

/**
 * Warms the model catalogue cache through the CLI, as a user's `ion models --refresh` would: the
 * provider's list of `ids` from `server`'s `/models`, and the models.dev snapshot from its `/api.json`
 * (pass `ION_MODELS_URL` pointing there in `env`).
 */
export async function warmCatalog(
  server: FakeLLM,
  box: Sandbox,
  env: Record<string, string>,
  ids: string[] = ["gpt-4o", "gpt-4o-mini"],
): Promise<void> {
  const list = {
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 1, owned_by: "openai" })),
  };
  server.enqueue(
    { body: JSON.stringify(list), headers: { "content-type": "application/json" }, pathSuffix: "/models" },
    {
      body: await Bun.file(`${FIXTURES}models-dev-snapshot.json`).text(),
      headers: { "content-type": "application/json" },
      pathSuffix: "/api.json",
    },
  );
  const run = await box.run(["models", "--refresh", "--json"], { env });
  expect(run.code).toBe(0);
}

/** A Chat Completions message as the fake server recorded it. */
export type WireMessage = { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string };

/** A message's text, whatever shape the wire gave its content. */
export function textOf(message: WireMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join("");
  return "";
}

/** The conversation of a Chat Completions request without its system prompt: `role: text` per message. */
export function transcript(request: RecordedRequest): string[] {
  return (request.body as { messages: WireMessage[] }).messages
    .filter((m) => m.role !== "system")
    .map((m) => `${m.role}: ${textOf(m)}`);
}

/** Per Chat Completions request, in order: the contents of its user messages (what a chat sent). */
export function userContents(requests: readonly RecordedRequest[]): unknown[][] {
  return requests.map((request) =>
    (request.body as { messages: WireMessage[] }).messages
      .filter((m) => m.role === "user")
      .map((m) => m.content),
  );
}
