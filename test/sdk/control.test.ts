import { expect, test } from "bun:test";
import type { JsonObject } from "../../src/sdk/channel.ts";
import { SdkControl } from "../../src/sdk/control.ts";
import { programStdin } from "../support/program-stdin.ts";

/** An SdkControl whose stdin the test writes, as the SDK would, and whose output it reads. */
function control() {
  const written: JsonObject[] = [];
  const { stdin, send } = programStdin();
  const sdk = new SdkControl(
    (line) => written.push(line),
    () => {},
    stdin,
  );
  /** Answers ion's latest control request with `response`. */
  const answer = async (response: JsonObject) => {
    await Bun.sleep(5);
    const request = written.findLast((line) => line.type === "control_request");
    send({
      type: "control_response",
      response: { subtype: "success", request_id: request?.request_id, response },
    });
  };
  return { sdk, written, send, answer };
}

test("initialize: its hooks become callback hooks per event and matcher; its system prompt is kept", async () => {
  const { sdk, send, written } = control();
  send({
    type: "control_request",
    request_id: "i",
    request: {
      subtype: "initialize",
      hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0", "hook_1"], timeout: 5 }] },
      systemPrompt: ["Be brief."],
      appendSystemPrompt: "Answer in French.",
      sdkMcpServers: ["calc"],
    },
  });
  await sdk.started;
  expect(sdk.programHooks().hooks).toEqual({
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          { type: "callback", id: "hook_0", timeout: 5 },
          { type: "callback", id: "hook_1", timeout: 5 },
        ],
      },
    ],
  });
  expect(sdk.systemPrompt()).toEqual({ system: "Be brief.", append: "Answer in French." });
  expect(sdk.programMcpServers(["calc", "files"]).map((server) => [server.name, server.type])).toEqual([
    ["calc", "sdk"],
    ["files", "sdk"],
  ]);
  // The answer names the session's model: it waits for the session to open.
  await Bun.sleep(5);
  expect(written).toEqual([]);
});

test("the SDK's default empty system prompt keeps ion's preamble", async () => {
  const { sdk, send } = control();
  send({ type: "control_request", request_id: "i", request: { subtype: "initialize", systemPrompt: [""] } });
  await sdk.started;
  expect(sdk.systemPrompt()).toEqual({});
});

test("can_use_tool: Claude Code's tool name; allow with updatedInput, deny with the program's message", async () => {
  const { sdk, written, answer } = control();
  const approve = sdk.approver();
  const call = { id: "call_1", name: "bash", input: { command: "rm -rf build" } };
  const allowed = approve(call);
  await answer({ behavior: "allow", updatedInput: { command: "rm -rf build/tmp" } });
  expect(await allowed).toEqual({ decision: "allow", input: { command: "rm -rf build/tmp" } });
  expect(written[0]).toMatchObject({
    request: { subtype: "can_use_tool", tool_name: "Bash", input: call.input, tool_use_id: "call_1" },
  });
  const denied = approve(call);
  await answer({ behavior: "deny", message: "not that" });
  expect(await denied).toEqual({ decision: "deny", reason: "not that" });
});

test("can_use_tool with interrupt: true denies and ends the turn in flight", async () => {
  const { sdk, answer } = control();
  const turn = sdk.turnSignal(new AbortController().signal);
  const decided = sdk.approver()({ id: "c", name: "write_file", input: { path: "a" } });
  await answer({ behavior: "deny", message: "stop everything", interrupt: true });
  expect(await decided).toEqual({ decision: "deny", reason: "stop everything" });
  expect(turn.aborted).toBe(true);
  expect(sdk.interruptedByProgram).toBe(true);
});

test("a hook callback's answer is read as a command hook's JSON output", async () => {
  const { sdk, written, answer } = control();
  const { runCallback } = sdk.programHooks();
  const ran = runCallback(
    { command: "callback hook_0", callbackId: "hook_0", timeoutMs: 1000 },
    JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: "call_9" }),
  );
  await answer({ decision: "block", reason: "no" });
  expect(await ran).toEqual({
    command: "callback hook_0",
    code: 0,
    stdout: JSON.stringify({ decision: "block", reason: "no" }),
    stderr: "",
    timedOut: false,
  });
  expect(written[0]).toMatchObject({
    request: { subtype: "hook_callback", callback_id: "hook_0", tool_use_id: "call_9" },
  });
});

test("can_use_tool: a file tool's path is Claude Code's file_path both ways", async () => {
  const { sdk, written, answer } = control();
  const decided = sdk.approver()({ id: "w", name: "write_file", input: { path: "a.txt", content: "x" } });
  await answer({ behavior: "allow", updatedInput: { file_path: "b.txt", content: "x" } });
  expect(written[0]).toMatchObject({
    request: { tool_name: "Write", input: { path: "a.txt", file_path: "a.txt", content: "x" } },
  });
  expect(await decided).toEqual({ decision: "allow", input: { path: "b.txt", content: "x" } });
});
