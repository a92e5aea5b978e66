import { z } from "zod";
import type { AgentTool, ReadOnlyRule, ToolContext, ToolOutcome } from "./types.ts";

/**
 * Thrown by a tool for a problem the model can fix (missing file, ambiguous edit, path outside the
 * workspace): it becomes an `is_error` result with this message. Anything else thrown is a tool bug.
 */
export class ToolInputError extends Error {
  override name = "ToolInputError";
}

export interface ToolDefinition<Schema extends z.ZodObject> {
  name: string;
  /** An operating manual for the model: what the tool does, when to use it, its limits. */
  description: string;
  schema: Schema;
  readOnly: ReadOnlyRule;
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutcome | string>;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
}

/** The JSON Schema sent to providers; `$schema` is dropped because some OpenAI-compatible servers reject it. */
function inputSchema(schema: z.ZodObject): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

/** One tool = one file: zod schema, description, execute. Invalid arguments never reach `execute`. */
export function defineTool<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): AgentTool {
  let spec: AgentTool["spec"] | undefined;
  return {
    get spec() {
      spec ??= {
        name: definition.name,
        description: definition.description,
        input_schema: inputSchema(definition.schema),
      };
      return spec;
    },
    readOnly: definition.readOnly,
    async execute(input, ctx) {
      const parsed = definition.schema.safeParse(input);
      if (!parsed.success) {
        return {
          is_error: true,
          content: `invalid arguments for ${definition.name}: ${describeIssues(parsed.error)}`,
        };
      }
      try {
        const outcome = await definition.execute(parsed.data, ctx);
        return typeof outcome === "string" ? { content: outcome, is_error: false } : outcome;
      } catch (err) {
        if (err instanceof ToolInputError) return { content: err.message, is_error: true };
        throw err;
      }
    },
  };
}
