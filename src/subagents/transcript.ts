import * as z from "zod/mini";
import { MessageSchema } from "../providers/message-schema.ts";
import type { Message } from "../providers/types.ts";

/**
 * A subagent's conversation as its session file keeps it: an `extension_state` entry of the subagents
 * extension under the call that ran it, saved after each of the child's steps. Read back (`resume`,
 * `ion sessions show`) it is checked, since the file may be damaged or written by another ion; zod/mini
 * loads only then, never on a run that reads no saved child.
 */

export interface ChildTranscript {
  type: string;
  description: string;
  messages: Message[];
}

const ChildTranscriptSchema = z.object({
  type: z.string(),
  description: z.string(),
  messages: z.array(MessageSchema),
});

/** A saved child's conversation; undefined when `data` is not one in a shape this ion reads. */
export function childTranscriptOf(data: unknown): ChildTranscript | undefined {
  const parsed = ChildTranscriptSchema.safeParse(data);
  return parsed.success ? (parsed.data as ChildTranscript) : undefined;
}
