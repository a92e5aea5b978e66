import { describe, expect, test } from "bun:test";
import { ControlChannel, type JsonObject } from "../../src/sdk/channel.ts";
import { programStdin as pipe } from "../support/program-stdin.ts";

function channel() {
  const written: JsonObject[] = [];
  const warned: string[] = [];
  const ch = new ControlChannel(
    (line) => written.push(line),
    (line) => warned.push(line),
  );
  return { ch, written, warned };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("ControlChannel", () => {
  test("answers a known subtype with success and an unknown one with an error naming it", async () => {
    const { ch, written } = channel();
    ch.on("interrupt", () => ({}));
    const input = pipe();
    const reading = ch.pump(input.stdin);
    input.send({ type: "control_request", request_id: "a", request: { subtype: "interrupt" } });
    input.send({ type: "control_request", request_id: "b", request: { subtype: "rewind_files" } });
    input.close();
    await reading;
    await tick();
    expect(written).toEqual([
      { type: "control_response", response: { subtype: "success", response: {}, request_id: "a" } },
      {
        type: "control_response",
        response: { subtype: "error", error: "unsupported control request: rewind_files", request_id: "b" },
      },
    ]);
  });

  test("a handler that throws answers an error, not silence", async () => {
    const { ch, written } = channel();
    ch.on("set_model", () => {
      throw new Error("unknown model nope");
    });
    const input = pipe();
    const reading = ch.pump(input.stdin);
    input.send({
      type: "control_request",
      request_id: "m",
      request: { subtype: "set_model", model: "nope" },
    });
    input.close();
    await reading;
    await tick();
    expect(written[0]).toEqual({
      type: "control_response",
      response: { subtype: "error", error: "unknown model nope", request_id: "m" },
    });
  });

  test("user lines become turns; ion's requests are matched to their responses by request_id", async () => {
    const { ch, written } = channel();
    const input = pipe();
    const reading = ch.pump(input.stdin);
    const turns = ch.userMessages(new AbortController().signal);
    input.send({ type: "user", message: { role: "user", content: "first" } });
    expect((await turns.next()).value).toEqual([{ type: "text", text: "first" }]);
    const answer = ch.request({ subtype: "can_use_tool", tool_name: "Bash", input: {} });
    await tick();
    expect(written[0]).toMatchObject({ type: "control_request", request: { subtype: "can_use_tool" } });
    const id = written[0]?.request_id;
    input.send({
      type: "control_response",
      response: { subtype: "success", request_id: id, response: { behavior: "allow" } },
    });
    expect(await answer).toEqual({ behavior: "allow" });
    input.close();
    await reading;
    expect((await turns.next()).done).toBe(true);
  });

  test("an aborted request is withdrawn with control_cancel_request; stdin's end rejects the rest", async () => {
    const { ch, written } = channel();
    const input = pipe();
    const reading = ch.pump(input.stdin);
    const abort = new AbortController();
    const cancelled = ch.request({ subtype: "can_use_tool" }, abort.signal);
    abort.abort();
    await expect(cancelled).rejects.toThrow("cancelled");
    expect(written[1]).toEqual({ type: "control_cancel_request", request_id: written[0]?.request_id });
    const unanswered = ch.request({ subtype: "hook_callback" });
    input.close();
    await reading;
    await expect(unanswered).rejects.toThrow("stdin closed");
  });

  test("lines that are not the protocol are skipped with a warning", async () => {
    const { ch, warned } = channel();
    const input = pipe();
    const reading = ch.pump(input.stdin);
    input.send({ type: "assistant" });
    input.close();
    await reading;
    expect(warned).toEqual(['stdin line 1 skipped: type is "assistant", not "user"']);
  });
});
