import * as z from "zod/mini";

/**
 * The one definition of the conversation's messages: zod/mini schemas from which the TypeScript types
 * are inferred. types.ts re-exports the types (type-only: nothing on the run path loads zod for them);
 * history/validate.ts checks every message read from a session file against these schemas.
 */

export const TextBlockSchema = z.object({ type: z.literal("text"), text: z.string() });

/**
 * Fields a provider returned that only it understands and wants back unchanged on a later request —
 * how these APIs carry reasoning across tool calls: Gemini's `thought_signature` on a tool call,
 * OpenRouter's `reasoning_details`, Anthropic's redacted thinking. Kept in the session tagged with the
 * provider and wire that produced them: the wire building a request sends back only what its own
 * provider produced, and drops the rest. `wire` is a WireId when this ion wrote it; read back, it may
 * name a wire only a newer ion knows (then no wire here claims it).
 */
export const OpaqueFieldsSchema = z.object({
  provider: z.string(),
  wire: z.string(),
  fields: z.record(z.string(), z.unknown()),
});

export const ThinkingBlockSchema = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  /** Anthropic's signature; must be sent back unchanged with the block on the next request. */
  signature: z.optional(z.string()),
  /** The provider's own fields for this reasoning (see OpaqueFields); also tags where the text came from. */
  opaque: z.optional(OpaqueFieldsSchema),
});

export const ToolUseBlockSchema = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  /** The provider's own fields for this call (Gemini's thought_signature); see OpaqueFields. */
  opaque: z.optional(OpaqueFieldsSchema),
});

export const ToolResultBlockSchema = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});

/** The image types every wire with image input takes, told apart by their first bytes (image.ts). */
export const ImageMediaTypeSchema = z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * An image the user attached, kept whole in the session (base64) so a resumed session can send it
 * again even when the file has moved or gone (screenshots are often temporary).
 */
export const ImageBlockSchema = z.object({
  type: z.literal("image"),
  media_type: ImageMediaTypeSchema,
  /** The file's bytes, base64. */
  data: z.string(),
  /** The file name as the user gave it, for transcripts; never sent. */
  name: z.optional(z.string()),
});

export const UserBlockSchema = z.discriminatedUnion("type", [
  TextBlockSchema,
  ToolResultBlockSchema,
  ImageBlockSchema,
]);
export const AssistantBlockSchema = z.discriminatedUnion("type", [
  TextBlockSchema,
  ThinkingBlockSchema,
  ToolUseBlockSchema,
]);

/** Who put a context message into the conversation: "memory", "hook:UserPromptSubmit", … */
export const ContextMarkSchema = z.object({ source: z.string() });

export const UserMessageSchema = z.object({
  role: z.literal("user"),
  content: z.array(UserBlockSchema),
  /**
   * Set on a context message: text ion or an extension put into the conversation (memory recall, a
   * hook's additional context), never the user's words. Kept in the session and shown as context;
   * never sent on a wire (the model gets a plain user message).
   */
  context: z.optional(ContextMarkSchema),
});

export const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.array(AssistantBlockSchema),
});

export const MessageSchema = z.discriminatedUnion("role", [UserMessageSchema, AssistantMessageSchema]);

export type TextBlock = z.infer<typeof TextBlockSchema>;
export type OpaqueFields = z.infer<typeof OpaqueFieldsSchema>;
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;
export type ImageMediaType = z.infer<typeof ImageMediaTypeSchema>;
export type ImageBlock = z.infer<typeof ImageBlockSchema>;
export type UserBlock = z.infer<typeof UserBlockSchema>;
export type AssistantBlock = z.infer<typeof AssistantBlockSchema>;
export type ContentBlock = AssistantBlock | UserBlock;
export type ContextMark = z.infer<typeof ContextMarkSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
