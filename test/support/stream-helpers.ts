/**
 * Builders and collectors shared by the provider, agent, UI and config tests: a provider and a stream
 * request to override, stream events, SSE framing, and a fake LLM per test file with a harness for the
 * wire adapters.
 */
import { afterAll, beforeAll, beforeEach, expect } from "bun:test";
import type { Config } from "../../src/config/schema.ts";
import { builtinProvider } from "../../src/providers/registry.ts";
import type {
  Message,
  ProviderError,
  ResolvedProvider,
  StopReason,
  StreamEvent,
  StreamFn,
  StreamRequest,
  Usage,
} from "../../src/providers/types.ts";
import { type FakeLLM, type FakeResponse, fixtureText, splitFrames, startFakeLLM } from "./fake-llm.ts";

/** An OpenAI-wire provider on the discard port: for code that never connects, or to override per wire. */
export function testProvider(overrides: Partial<ResolvedProvider> = {}): ResolvedProvider {
  return {
    id: "fake",
    name: "Fake",
    wire: "openai",
    baseURL: "http://127.0.0.1:9/v1",
    apiKey: "sk-test",
    keySource: "config",
    headers: {},
    quirks: {},
    ...overrides,
  };
}

/** A request to `testProvider()` with no system prompt, messages or tools, thinking off and a fresh signal. */
export function testRequest(overrides: Partial<StreamRequest> = {}): StreamRequest {
  return {
    provider: testProvider(),
    model: "m",
    system: "",
    messages: [],
    tools: [],
    thinking: "off",
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** A user message holding one text block. */
export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export function usageOf(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
}

export function textDeltas(pieces: string[]): StreamEvent[] {
  return pieces.map((text) => ({ type: "text_delta", text }));
}

/** A tool call as it starts streaming, then its arguments piece by piece (not yet completed). */
export function streamedToolCall(index: number, id: string, name: string, pieces: string[]): StreamEvent[] {
  return [
    { type: "tool_call_start", index, id, name },
    ...pieces.map((p): StreamEvent => ({ type: "tool_call_delta", index, arguments_delta: p })),
  ];
}

/** Every event of a tool call streamed on its own: its start, its argument pieces, then the parsed call. */
export function toolCallEvents(
  index: number,
  id: string,
  name: string,
  pieces: string[],
  input: Record<string, unknown>,
): StreamEvent[] {
  return [...streamedToolCall(index, id, name, pieces), { type: "tool_call", id, name, input }];
}

/** How a finished stream ends: its usage, then `done` with the same usage. */
export function finishEvents(stopReason: StopReason, usage: Usage): StreamEvent[] {
  return [
    { type: "usage", usage },
    { type: "done", stop_reason: stopReason, usage },
  ];
}

export async function collectEvents<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** A signal that has already fired. */
export function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

/** SSE `data:` frames; a string payload (e.g. `"[DONE]"`) is sent as is, anything else as JSON. */
export function sseFrames(...payloads: unknown[]): string {
  return payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("");
}

/** SSE frames named by their payload's type, as Anthropic frames them. */
export function namedSseFrames(...events: { type: string; [key: string]: unknown }[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

/** A rejected key: auth, from a 401, naming the provider and where its key came from, never the key. */
export function expectAuthError(
  error: ProviderError,
  providerId: string,
  keySource: string,
  key: string,
): void {
  expect(error.kind).toBe("auth");
  expect(error.status).toBe(401);
  expect(error.message).toContain(providerId);
  expect(error.message).toContain(keySource);
  expect(error.message).not.toContain(key);
}

/** An HTTP response with a JSON body, for the fake LLM; a string body is sent as is. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): FakeResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/** A Chat Completions stream chunk with one choice; `extra` adds or replaces top-level fields. */
export function chatChunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
}

/**
 * Start a fake LLM before the file's tests and stop it after them. The returned handle forwards to the
 * running server, so it can be used from any test or hook of the file.
 */
export function useFakeLLM(options: { resetRequestsEachTest?: boolean } = {}): FakeLLM {
  let started: FakeLLM | undefined;
  const running = (): FakeLLM => {
    if (!started) throw new Error("the fake LLM runs only while the file's tests run");
    return started;
  };
  beforeAll(async () => {
    started = await startFakeLLM();
  });
  afterAll(async () => {
    await started?.stop();
  });
  if (options.resetRequestsEachTest) {
    beforeEach(() => {
      running().requests.length = 0;
    });
  }
  return new Proxy({} as FakeLLM, {
    get(_, key) {
      const server = running();
      const value: unknown = Reflect.get(server, key);
      return typeof value === "function" ? value.bind(server) : value;
    },
  });
}

export interface AdapterHarness {
  /** The file's fake LLM. */
  server: FakeLLM;
  /** The built-in provider, pointed at the fake LLM with the test key. */
  provider(overrides?: Partial<ResolvedProvider>): ResolvedProvider;
  /** A request to `provider()` with the harness's model, system prompt and user prompt. */
  request(overrides?: Partial<StreamRequest>): StreamRequest;
  /** Run the adapter and gather every event it yields. */
  collect(request: StreamRequest): Promise<StreamEvent[]>;
  /**
   * Replay a recorded stream (a path under the fixtures) that stalls after `stallAfterChunks` frames and
   * gather its events; `onText` gets the request's abort controller at every text delta (by default it
   * aborts at once).
   */
  abortDuringStall(
    fixture: string,
    stallAfterChunks: number,
    onText?: (controller: AbortController) => void,
  ): Promise<StreamEvent[]>;
}

export interface AdapterDefaults {
  apiKey: string;
  model: string;
  /** The text of the one user message. */
  prompt: string;
  system?: string;
  resetRequestsEachTest?: boolean;
}

/**
 * Everything a wire adapter's tests need: a fake LLM for the file, the built-in provider `providerId`
 * pointed at it (with its key as if read from the provider's first env var), requests, and a collector.
 */
export function useAdapterHarness(
  providerId: string,
  stream: StreamFn,
  defaults: AdapterDefaults,
): AdapterHarness {
  const info = builtinProvider(providerId);
  if (!info) throw new Error(`no built-in provider "${providerId}"`);
  // The SDKs take the base URL in the registry's form: the bare origin, or with a path such as /v1.
  const basePath = new URL(info.baseURL).pathname.replace(/\/$/, "");
  const server = useFakeLLM({ resetRequestsEachTest: defaults.resetRequestsEachTest });
  const provider = (overrides: Partial<ResolvedProvider> = {}) =>
    testProvider({
      id: info.id,
      name: info.name,
      wire: info.wire,
      baseURL: `${server.url}${basePath}`,
      apiKey: defaults.apiKey,
      keySource: `env ${info.keyEnv[0]}`,
      quirks: { ...info.quirks },
      ...overrides,
    });
  const request = (overrides: Partial<StreamRequest> = {}) =>
    testRequest({
      provider: provider(),
      model: defaults.model,
      system: defaults.system ?? "",
      messages: [userText(defaults.prompt)],
      ...overrides,
    });
  const collect = (req: StreamRequest) => collectEvents(stream(req));
  const abortDuringStall = async (
    fixture: string,
    stallAfterChunks: number,
    onText = (controller: AbortController) => controller.abort(),
  ) => {
    server.enqueue({ chunks: splitFrames(await fixtureText(fixture)), stallAfterChunks });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of stream(request({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === "text_delta") onText(controller);
    }
    return events;
  };
  return { server, provider, request, collect, abortDuringStall };
}

/** The URL of a fake LLM that has stopped: connecting to it is refused. */
export async function refusedURL(): Promise<string> {
  const closed = await startFakeLLM();
  await closed.stop();
  return closed.url;
}

/** The flat, single-provider form of a config file (a fresh object each time). */
export function flatConfig(): Config {
  return {
    provider: "openai",
    model: "gpt-4o",
    api_key: "sk-test-flat-0000000000001234",
    api_base: null,
    preamble: "You are a helpful assistant.",
    context_window: 128000,
  };
}
