/**
 * `--json-schema SCHEMA|@file`: the final answer must be JSON valid against the schema. Wires with
 * native structured output get the schema on the request; every wire also gets it in the system
 * prompt, and the answer is validated here, with one repair request when it does not validate.
 * zod is imported only when the flag is given (a plain run must not pay for it).
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { IonError } from "../errors.ts";
import type { ResponseSchema } from "../providers/types.ts";
import { errnoText, messageOf } from "../util/error-text.ts";
import { failedResult, type RunResult } from "./events.ts";

export interface OutputSchema extends ResponseSchema {
  /** undefined when the value is valid, else the first problem in one line. */
  validate: (value: unknown) => string | undefined;
}

/** Reads the flag's value (inline JSON or `@file`, relative to `cwd`); a bad schema is a usage error. */
export async function loadOutputSchema(value: string, cwd: string): Promise<OutputSchema> {
  let text = value;
  if (value.startsWith("@")) {
    const path = resolve(cwd, value.slice(1));
    try {
      text = await readFile(path, "utf8");
    } catch (err) {
      throw new IonError("usage", `--json-schema: cannot read ${value.slice(1)} (${errnoText(err)})`);
    }
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    const why = messageOf(err);
    throw new IonError("usage", `--json-schema is not valid JSON: ${why}`, {
      hint: "give the schema inline or as @file",
    });
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new IonError("usage", "--json-schema must be a JSON Schema object");
  const { fromJSONSchema } = await import("./json-schema-check.ts");
  let zodSchema: ReturnType<typeof fromJSONSchema>;
  try {
    zodSchema = fromJSONSchema(schema as Record<string, unknown>);
  } catch (err) {
    const why = messageOf(err).split("\n")[0];
    throw new IonError("usage", `--json-schema is not a usable JSON Schema: ${why}`);
  }
  return {
    name: "output",
    schema: schema as Record<string, unknown>,
    validate: (candidate) => {
      const parsed = zodSchema.safeParse(candidate);
      if (parsed.success) return undefined;
      const issue = parsed.error.issues[0];
      if (!issue) return "does not match the schema";
      const at = issue.path.length > 0 ? issue.path.map(String).join(".") : "the answer";
      return `${at}: ${issue.message}`;
    },
  };
}

/** What the system prompt adds, on every wire (native structured output or not). */
export function schemaInstructions(schema: OutputSchema): string {
  return [
    "When you give your final answer, reply with only a JSON value (no prose, no code fence) valid",
    `against this JSON Schema:\n${JSON.stringify(schema.schema)}`,
  ].join(" ");
}

/** The answer's JSON: the text itself, or inside one ```json fence (a common habit of models). */
function parseAnswer(text: string): { value: unknown } | { problem: string } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  try {
    return { value: JSON.parse(fenced?.[1] ?? trimmed) };
  } catch (err) {
    const why = messageOf(err);
    return { problem: trimmed ? `the answer is not valid JSON (${why})` : "the answer is empty" };
  }
}

/**
 * Checks each final answer of one turn (the loop's `beforeStop`): a valid one is kept; the first
 * invalid one gets one repair request naming the problem; the second ends the run as an error.
 */
export class SchemaCheck {
  private value: { parsed: unknown } | undefined;
  private problem: string | undefined;
  private repaired = false;

  constructor(private readonly schema: OutputSchema) {}

  readonly beforeStop = async (finalText: string): Promise<string | undefined> => {
    const answer = parseAnswer(finalText);
    const problem = "value" in answer ? this.schema.validate(answer.value) : answer.problem;
    if (problem === undefined && "value" in answer) {
      this.value = { parsed: answer.value };
      this.problem = undefined;
      return undefined;
    }
    this.value = undefined;
    this.problem = problem;
    if (this.repaired) return undefined;
    this.repaired = true;
    return `Your answer does not match the required JSON Schema: ${problem}. Reply with only the corrected JSON value.`;
  };

  /** The result with `structured_output`, or failed naming the problem; other failures stay as they are. */
  finish(result: RunResult): RunResult {
    if (result.subtype !== "success") return result;
    if (this.value) return { ...result, structured_output: this.value.parsed };
    return failedResult(result, [
      `the final answer does not match --json-schema: ${this.problem ?? "no answer was checked"}`,
    ]);
  }
}
