import { missingKeyError } from "./errors.ts";
import { imagesFor } from "./image.ts";
import { withRetries } from "./retry.ts";
import type { StreamEvent, StreamRequest } from "./types.ts";

/** One wire's stream; adapters are imported on first use so commands that never call a model stay fast. */
async function* wireStream(request: StreamRequest): AsyncGenerator<StreamEvent> {
  switch (request.provider.wire) {
    case "openai": {
      const { streamOpenAI } = await import("./openai.ts");
      yield* streamOpenAI(request);
      return;
    }
    case "anthropic": {
      const { streamAnthropic } = await import("./anthropic.ts");
      yield* streamAnthropic(request);
      return;
    }
    case "mistral": {
      const { streamMistral } = await import("./mistral.ts");
      yield* streamMistral(request);
      return;
    }
    case "ollama": {
      const { streamOllama } = await import("./ollama.ts");
      yield* streamOllama(request);
      return;
    }
  }
}

/**
 * The stream function the agent uses: the provider's wire with ion's retry policy around it. A built-in
 * provider that needs a key and has none is refused here, before any request (a vendor would only
 * answer 401, and some SDKs would go looking for credentials of their own).
 */
export async function* streamProvider(request: StreamRequest): AsyncGenerator<StreamEvent> {
  const missing = missingKeyError(request.provider);
  if (missing) {
    yield { type: "error", error: missing };
    return;
  }
  yield* withRetries(wireStream, imagesFor(request));
}
