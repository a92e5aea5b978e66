/**
 * The Claude Agent SDK's message types with ion's documented deviations (README, "Claude Code
 * compatibility"), for checking ion's real output with tsc. Anything not listed here must match the
 * SDK's declarations exactly; ion's own extra fields (schema_version, provider, …) are allowed.
 */
import type {
  ModelUsage,
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKPartialAssistantMessage,
  SDKResultError,
  SDKResultSuccess,
  SDKSystemMessage,
  SDKUserMessage,
} from "@anthropic-ai/claude-agent-sdk";

type Extra = Record<string, unknown>;

/** ion is not Claude Code: no claude_code_version; the key source names ion's (an env var, keys.json, config, none). */
export type IonInit = Omit<SDKSystemMessage, "claude_code_version" | "apiKeySource"> & {
  apiKeySource: string;
} & Extra;

/** Thinking from wires without signatures has none (ion cannot invent one). */
type IonContent = SDKAssistantMessage["message"]["content"][number] extends infer B
  ? B extends { type: "thinking" }
    ? Omit<B, "signature"> & { signature?: string }
    : B
  : never;
export type IonAssistant = Omit<SDKAssistantMessage, "message"> & {
  message: Omit<SDKAssistantMessage["message"], "content"> & { content: IonContent[] };
} & Extra;

export type IonUser = SDKUserMessage & Extra;
export type IonPartial = SDKPartialAssistantMessage & Extra;
export type IonRetry = SDKAPIRetryMessage & Extra;
export type IonCompact = SDKCompactBoundaryMessage & Extra;

/** Unknown prices, windows and output limits are null, never a guessed number. */
type IonModelUsage = Omit<ModelUsage, "costUSD" | "contextWindow" | "maxOutputTokens"> & {
  costUSD: number | null;
  contextWindow: number | null;
  maxOutputTokens: number | null;
};
/** The result keeps SPEC's four usage counts; total_cost_usd is null when the price is unknown. */
type ResultDeviations = {
  total_cost_usd: number | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  };
  modelUsage: Record<string, IonModelUsage>;
};
type Deviated = "total_cost_usd" | "usage" | "modelUsage";
export type IonResult =
  | (Omit<SDKResultSuccess, Deviated> & ResultDeviations & Extra)
  | (Omit<SDKResultError, Deviated | "subtype"> & {
      /** error_interrupted is ion's own: the run was cancelled (SIGINT/SIGTERM). */
      subtype: SDKResultError["subtype"] | "error_interrupted";
    } & ResultDeviations &
      Extra);

export type IonLine = IonInit | IonAssistant | IonUser | IonPartial | IonRetry | IonCompact | IonResult;
