/**
 * A strict Ollama for the fake LLM: answers as a default Ollama does (ollama/ollama `server/routes.go`,
 * `server/prompt.go`), so a test can see what the model would have seen.
 *
 * - `POST /api/show` answers the model's card in the real shape (docs/api.md "Show Model Information":
 *   `model_info["<arch>.context_length"]`, `parameters`, `capabilities`), or the real 404
 *   `{"error":"model '<name>' not found"}` for a model it does not have.
 * - `POST /api/chat` streams NDJSON built from the documented chunks in ../shared/fixtures/streaming
 *   (ollama-chat-stream-*.ndjson, read at test time).
 * - `POST /v1/chat/completions` streams OpenAI SSE: /v1 has no `num_ctx`.
 * - The rule: the context is `options.num_ctx`, else the server default — 4096 on a machine with under
 *   24 GiB of VRAM (docs/context-length.mdx: "< 24 GiB VRAM: 4k context") — and never more than the
 *   model's trained length (`optionsForPrompt`). A prompt longer than that loses its oldest messages,
 *   silently and with a 200: "chatPrompt truncates any messages that exceed the context window of the
 *   model, making sure to always include 1) the latest message and 2) system messages" (prompt.go).
 *   Tokens are counted as 4 characters each, a tokenizer's stand-in.
 *
 * The reply is decided from what survived (`decide(seen)`), so a lost task shows in the answer.
 */
import type { FakeResponse, RecordedRequest } from "./fake-llm.ts";
import { fixtureText } from "./fake-llm.ts";
import { streamReply } from "./wire-scripts.ts";

export interface OllamaCard {
  name: string;
  architecture: string;
  contextLength: number;
  capabilities: string[];
  /** The Modelfile parameters as /api/show prints them. */
  parameters?: string;
}

export const QWEN3: OllamaCard = {
  name: "qwen3:8b",
  architecture: "qwen3",
  contextLength: 40960,
  capabilities: ["completion", "tools", "thinking"],
  parameters: 'repeat_penalty 1\nstop "<|im_start|>"\nstop "<|im_end|>"\ntemperature 0.6',
};
export const LLAMA32: OllamaCard = {
  name: "llama3.2:latest",
  architecture: "llama",
  contextLength: 131072,
  capabilities: ["completion", "tools"],
  parameters: 'stop "<|start_header_id|>"\nstop "<|end_header_id|>"\nstop "<|eot_id|>"',
};
export const GPT_OSS: OllamaCard = {
  name: "gpt-oss:20b",
  architecture: "gptoss",
  contextLength: 131072,
  capabilities: ["completion", "tools", "thinking"],
  parameters: "temperature 1",
};

/** Ollama's context when a request sets no num_ctx, on a machine with under 24 GiB of VRAM. */
export const DEFAULT_NUM_CTX = 4096;

export interface SeenMessage {
  role: string;
  content: string;
  tool_name?: string;
  tool_calls?: unknown[];
}

/** What the model saw of one chat request. */
export interface Seen {
  path: string;
  /** The messages that fit the context, in order (system messages always kept). */
  messages: SeenMessage[];
  dropped: number;
  /** The context the request ran with. */
  numCtx: number;
  promptTokens: number;
}

export interface OllamaReply {
  text?: string;
  thinking?: string;
  toolCalls?: { id?: string; name: string; input: Record<string, unknown> }[];
}

const tokens = (text: string) => Math.ceil(text.length / 4);

function promptTokens(messages: SeenMessage[], tools: unknown): number {
  return tokens(JSON.stringify(messages)) + (tools === undefined ? 0 : tokens(JSON.stringify(tools)));
}

/** prompt.go's truncation: drop from the front (keeping system messages) until the rest fits. */
export function fitContext(messages: SeenMessage[], tools: unknown, numCtx: number): Omit<Seen, "path"> {
  for (let from = 0; from < messages.length; from++) {
    const kept = [...messages.slice(0, from).filter((m) => m.role === "system"), ...messages.slice(from)];
    const used = promptTokens(kept, tools);
    if (used <= numCtx || from === messages.length - 1)
      return { messages: kept, dropped: messages.length - kept.length, numCtx, promptTokens: used };
  }
  return { messages: [], dropped: 0, numCtx, promptTokens: 0 };
}

export function ollamaShowBody(card: OllamaCard): Record<string, unknown> {
  return {
    parameters: card.parameters,
    template: "{{ .Prompt }}",
    details: { parent_model: "", format: "gguf", family: card.architecture, families: [card.architecture] },
    model_info: {
      "general.architecture": card.architecture,
      "general.parameter_count": 8190735360,
      [`${card.architecture}.block_count`]: 36,
      [`${card.architecture}.context_length`]: card.contextLength,
      [`${card.architecture}.embedding_length`]: 4096,
      "tokenizer.ggml.model": "gpt2",
    },
    capabilities: card.capabilities,
    modified_at: "2025-07-07T20:22:19.184789Z",
  };
}

const json = (status: number, body: unknown): FakeResponse => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: JSON.stringify(body),
});

/** NDJSON lines of a reply, each made from the fixture line of its kind. */
export async function ndjsonReply(model: string, reply: OllamaReply, promptCount: number): Promise<string[]> {
  const lines = async (name: string) =>
    (await fixtureText(`streaming/${name}`)).split("\n").filter((l) => l.trim().length > 0);
  const [textChunk = ""] = await lines("ollama-chat-stream-text.ndjson");
  const toolLines = await lines("ollama-chat-stream-tool-calls.ndjson");
  const [withId = ""] = await lines("ollama-chat-stream-tool-call-with-id.ndjson");
  const chunk = (message: Record<string, unknown>, template = textChunk) => {
    const base = JSON.parse(template) as Record<string, unknown>;
    const merged = { ...base, model, message: { ...(base.message as object), content: "", ...message } };
    return `${JSON.stringify(merged)}\n`;
  };
  const out: string[] = [];
  for (const piece of reply.thinking?.match(/.{1,12}/gs) ?? []) out.push(chunk({ thinking: piece }));
  for (const piece of reply.text?.match(/.{1,12}/gs) ?? []) out.push(chunk({ content: piece }));
  for (const call of reply.toolCalls ?? []) {
    const shape = { function: { name: call.name, arguments: call.input } };
    out.push(
      call.id
        ? chunk({ tool_calls: [{ id: call.id, ...shape }] }, withId)
        : chunk({ tool_calls: [shape] }, toolLines[0]),
    );
  }
  const last = JSON.parse(toolLines.at(-1) ?? "{}") as Record<string, unknown>;
  const output = `${reply.thinking ?? ""}${reply.text ?? ""}${JSON.stringify(reply.toolCalls ?? [])}`;
  out.push(
    `${JSON.stringify({ ...last, model, prompt_eval_count: promptCount, eval_count: tokens(output) })}\n`,
  );
  return out;
}

function seenMessages(body: Record<string, unknown>): SeenMessage[] {
  const raw = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  return raw.map((m) => ({
    role: String(m.role),
    content: typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""),
    ...(typeof m.tool_name === "string" ? { tool_name: m.tool_name } : {}),
    ...(Array.isArray(m.tool_calls) ? { tool_calls: m.tool_calls } : {}),
  }));
}

/**
 * One answer of a default Ollama serving `cards`, whichever path the request takes: /api/show,
 * /api/chat or /v1/chat/completions. `decide` makes the model's reply from what it saw; `seen` collects it.
 */
export function strictOllama(
  cards: OllamaCard[],
  decide: (seen: Seen) => OllamaReply,
  seen: Seen[] = [],
): FakeResponse {
  return {
    respond: async (request: RecordedRequest): Promise<FakeResponse> => {
      const path = request.path.split("?")[0] ?? "";
      const body = (request.body ?? {}) as Record<string, unknown>;
      const card = cards.find((c) => c.name === body.model || c.name === `${body.model}:latest`);
      if (request.method !== "POST") return json(405, { error: "method not allowed" });
      if (!card) return json(404, { error: `model '${String(body.model)}' not found` });
      if (path.endsWith("/api/show")) return json(200, ollamaShowBody(card));
      const native = path.endsWith("/api/chat");
      if (!native && !path.endsWith("/v1/chat/completions"))
        return { status: 404, body: "404 page not found" };
      const options = (body.options ?? {}) as { num_ctx?: unknown };
      const asked = native && typeof options.num_ctx === "number" ? options.num_ctx : DEFAULT_NUM_CTX;
      const fit = fitContext(seenMessages(body), body.tools, Math.min(asked, card.contextLength));
      const saw: Seen = { path, ...fit };
      seen.push(saw);
      const reply = decide(saw);
      if (!native) return streamReply("openai", { ...reply, usage: { input: fit.promptTokens } });
      return {
        headers: { "content-type": "application/x-ndjson" },
        chunks: await ndjsonReply(String(body.model), reply, fit.promptTokens),
      };
    },
  };
}
