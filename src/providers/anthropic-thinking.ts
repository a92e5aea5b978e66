/**
 * How the Anthropic wire asks a model to think. Claude's models take one of two request forms, and
 * which one is a per-model rule (Anthropic, "Troubleshooting thinking"): extended thinking
 * (`thinking: {type: "enabled", budget_tokens}`) is the only form up to Claude 4.5, deprecated on the 4.6
 * models, and rejected with a 400 from Claude Opus 4.7 on (Opus 4.8, Sonnet 5, Fable 5, Mythos 5 and
 * later), which take only adaptive thinking (`thinking: {type: "adaptive"}` with `output_config.effort`).
 * The form is chosen from the table below and the catalogue's word; when the API answers 400 naming the
 * other form, the request is sent once more in it and the answer is remembered for the process.
 */
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { StreamRequest, ThinkingLevel } from "./types.ts";

export type ThinkingForm = "adaptive" | "budget" | "none";
type Level = Exclude<ThinkingLevel, "off">;

/** `thinking.budget_tokens` per level (the API's minimum is 1024; SPEC: ≈1k/4k/16k). */
export const THINKING_BUDGET: Record<Level, number> = { low: 1024, medium: 4096, high: 16384 };

/** ion's level → `output_config.effort`; the API's `xhigh` and `max` are above anything ion asks for. */
export const THINKING_EFFORT: Record<Level, "low" | "medium" | "high"> = {
  low: "low",
  medium: "medium",
  high: "high",
};

/** A Claude model id, also behind a gateway's prefix (`anthropic.claude-…`, `anthropic/claude-…`). */
const CLAUDE = "(?:^|[^a-z0-9])claude-";

/** The thinking form by model id, first match first; an id that matches none gets the budget form. */
export const THINKING_FORMS: readonly { pattern: RegExp; form: ThinkingForm }[] = [
  // Claude 2, Instant, 3 and 3.5 have no extended thinking.
  { pattern: new RegExp(`${CLAUDE}(?:2|instant|3-(?:5-)?(?:opus|sonnet|haiku))`), form: "none" },
  // Claude 3.7 Sonnet: extended thinking only.
  { pattern: new RegExp(`${CLAUDE}3-7-`), form: "budget" },
  // 4.6 (where the budget form is deprecated), 4.7 and later 4.x, 5 and later: adaptive. A date suffix
  // (`claude-opus-4-20250514`) is not a minor version, hence one or two digits then a non-digit.
  {
    pattern: new RegExp(`${CLAUDE}[a-z]+-(?:4-(?:[6-9]|[1-9][0-9])|[5-9]|[1-9][0-9])(?:[^0-9]|$)`),
    form: "adaptive",
  },
  { pattern: new RegExp(`${CLAUDE}mythos-preview`), form: "adaptive" },
];

/** Forms learned from the API's 400s, by provider and model, for the rest of the process. */
const learned = new Map<string, Exclude<ThinkingForm, "none">>();

const keyOf = (request: StreamRequest) => `${request.provider.id}/${request.model}`;

/** The form to send `request.thinking` in; "none" when the model does not reason. */
export function thinkingForm(request: StreamRequest): ThinkingForm {
  if (request.modelInfo?.reasoning === false) return "none";
  const known = learned.get(keyOf(request));
  if (known) return known;
  const form = THINKING_FORMS.find((rule) => rule.pattern.test(request.model))?.form ?? "budget";
  // The catalogue knows newer models than the table: a reasoning model it lists gets the common form.
  return form === "none" && request.modelInfo?.reasoning === true ? "budget" : form;
}

export function rememberThinkingForm(request: StreamRequest, form: Exclude<ThinkingForm, "none">): void {
  learned.set(keyOf(request), form);
}

/**
 * The form a 400's message asks for, if it names one. Anthropic's words for each direction:
 * `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and
 * "output_config.effort" to control thinking behavior.` and `adaptive thinking is not supported on this
 * model`; compatible servers say `'adaptive' is not supported`.
 */
export function formAskedFor(message: string): Exclude<ThinkingForm, "none"> | undefined {
  if (/"thinking\.type\.enabled" is not supported|use "thinking\.type\.adaptive"/i.test(message)) {
    return "adaptive";
  }
  if (/adaptive thinking is not supported|'adaptive' is not supported/i.test(message)) return "budget";
  return undefined;
}

type ThinkingParams = Pick<MessageCreateParamsStreaming, "max_tokens" | "thinking" | "output_config">;

/**
 * `max_tokens`, `thinking` and `output_config` for the level in the form. Thinking counts toward
 * `max_tokens` in both forms, so the answer's room (`base`) is kept on top of the level's budget.
 */
export function thinkingParams(
  level: ThinkingLevel,
  form: ThinkingForm,
  base: number,
  room: number,
): ThinkingParams {
  if (level === "off" || form === "none") return { max_tokens: base };
  const max_tokens = Math.max(base, THINKING_BUDGET[level] + room);
  if (form === "budget") {
    return { max_tokens, thinking: { type: "enabled", budget_tokens: THINKING_BUDGET[level] } };
  }
  // From Opus 4.7 on the thinking text is omitted unless asked for; ion shows it (-v, stream-json).
  return {
    max_tokens,
    thinking: { type: "adaptive", display: "summarized" },
    output_config: { effort: THINKING_EFFORT[level] },
  };
}

/** What the user is told once when the level is not sent as a budget: ignored, or mapped onto effort. */
export function thinkingNotice(request: StreamRequest, form: ThinkingForm): string | undefined {
  const level = request.thinking;
  if (level === "off" || form === "budget") return undefined;
  const id = keyOf(request);
  if (form === "none") return `thinking is off for ${id}: the model does not reason`;
  return `${level} thinking sent to ${id} as adaptive thinking at effort ${THINKING_EFFORT[level]}`;
}
