import { expect, test } from "bun:test";
import { buildResult, type RunResult } from "../../src/agent/events.ts";
import { loadOutputSchema, SchemaCheck } from "../../src/agent/structured-output.ts";
import { IonError } from "../../src/errors.ts";
import { emptyUsage } from "../../src/providers/types.ts";

/** --json-schema's failure paths below the command line: a schema zod cannot use, and the checks of answers. */

const SCHEMA = '{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}';

function success(text: string): RunResult {
  return buildResult({
    subtype: "success",
    result: text,
    session_id: "s",
    provider: "fake",
    model: "m",
    num_turns: 1,
    duration_ms: 0,
    duration_api_ms: 0,
    usage: emptyUsage(),
    total_cost_usd: null,
    permission_denials: [],
    errors: [],
    stop_reason: "end_turn",
    modelUsage: {},
  });
}

test.each([
  ['{"type":"nonsense"}', "Unsupported type: nonsense"],
  ['{"$ref":"#/nowhere"}', "Reference not found: #/nowhere"],
])("a JSON object that is no usable schema (%s) is a usage error naming why", async (schema, why) => {
  const loading = loadOutputSchema(schema, process.cwd());
  await expect(loading).rejects.toBeInstanceOf(IonError);
  await expect(loading).rejects.toMatchObject({
    code: "usage",
    message: `--json-schema is not a usable JSON Schema: ${why}`,
  });
});

test("an invalid answer gets one repair request; invalid again, the run fails naming the problem", async () => {
  const check = new SchemaCheck(await loadOutputSchema(SCHEMA, process.cwd()));
  const repair = await check.beforeStop("forty-two");
  expect(repair).toContain("not valid JSON");
  // No second repair: the run ends with what it has.
  expect(await check.beforeStop('{"n": "42"}')).toBeUndefined();
  const result = check.finish(success('{"n": "42"}'));
  expect(result.is_error).toBe(true);
  expect(result.structured_output).toBeUndefined();
  expect(result.errors[0]).toMatch(/^the final answer does not match --json-schema: n: .*number/);
});

test("an empty answer is named as empty, not as bad JSON", async () => {
  const check = new SchemaCheck(await loadOutputSchema(SCHEMA, process.cwd()));
  expect(await check.beforeStop("   ")).toContain("the answer is empty");
});

test("a run that already failed keeps its own error: the schema adds none", async () => {
  const check = new SchemaCheck(await loadOutputSchema(SCHEMA, process.cwd()));
  const failed: RunResult = {
    ...success(""),
    subtype: "error_max_turns",
    is_error: true,
    errors: ["max turns"],
  };
  expect(check.finish(failed)).toBe(failed);
});
