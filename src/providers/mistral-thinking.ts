/**
 * How the Mistral wire asks a model to think (Mistral, "Reasoning"): Magistral models always reason and
 * take `prompt_mode: "reasoning"` (any other model answers 400 "Reasoning prompt mode is not enabled for
 * this model"); the adjustable models (Mistral Small 4, Mistral Medium 3.5) take `reasoning_effort`,
 * "none" or "high" only ("reasoning_effort='medium' is not supported for this model. Must be one of …");
 * every other model (Large, Codestral, Devstral, Ministral …) refuses the field. Whether a model reasons
 * is the catalogue's word first, these model ids otherwise.
 *
 *   mistralThinking({ model: "mistral-small-latest", thinking: "medium" })
 *     → { reasoningEffort: "high", notice: 'mistral/mistral-small-latest takes thinking as "high", …' }
 */
import type { StreamRequest } from "./types.ts";

const MAGISTRAL = /magistral/i;
/** Mistral Small 4 (`mistral-small-2603`, the `-latest` alias) and Mistral Medium 3.5 (`mistral-medium-3-5`, `-2604`). */
const ADJUSTABLE = /^mistral-(small-(latest|26\d\d)|medium-(3[.-]5|2604))/;

export interface MistralThinking {
  promptMode?: "reasoning";
  reasoningEffort?: "high";
  /** Said once a session when the level is ignored or sent as another value. */
  notice?: string;
}

/** The thinking fields for this request, and what to tell the user when the level is not sent as is. */
export function mistralThinking(
  request: Pick<StreamRequest, "provider" | "model" | "thinking" | "modelInfo">,
): MistralThinking {
  const level = request.thinking;
  // Off sends nothing: a model without adjustable reasoning may refuse even "none".
  if (level === "off") return {};
  const name = `${request.provider.id}/${request.model}`;
  const magistral = MAGISTRAL.test(request.model);
  const reasons = request.modelInfo?.reasoning ?? (magistral || ADJUSTABLE.test(request.model));
  if (!reasons) {
    return { notice: `${name} does not reason, so the thinking level "${level}" is not sent` };
  }
  if (magistral) {
    const notice = `${name} takes thinking on or off, not levels: thinking level ${level} is sent as on`;
    return { promptMode: "reasoning", notice };
  }
  if (level === "high") return { reasoningEffort: "high" };
  const notice = `${name} takes thinking as "high", so "${level}" is sent as that`;
  return { reasoningEffort: "high", notice };
}
