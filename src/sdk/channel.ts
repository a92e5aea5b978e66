import { textBlocks } from "../commands/run-stream-input.ts";
import type { UserBlock } from "../providers/types.ts";
import { textLines } from "../util/text-lines.ts";

/**
 * The Claude Agent SDK's control protocol over stdio: one reader of stdin that sorts its lines —
 * `user` messages (turns, queued), `control_request`s from the program (answered by a handler per
 * subtype), `control_response`s to ion's own requests (matched by `request_id`) and
 * `control_cancel_request`s — and one writer, the stream-json output's own, so lines never interleave.
 */

export type JsonObject = Record<string, unknown>;

/** Answers one control request from the program; what it returns is the success response's body. */
export type ControlHandler = (request: JsonObject, signal: AbortSignal) => Promise<JsonObject> | JsonObject;

export class ControlChannel {
  private readonly handlers = new Map<string, ControlHandler>();
  /** ion's requests awaiting the program's answer. */
  private readonly pending = new Map<
    string,
    { resolve: (body: JsonObject) => void; reject: (err: Error) => void }
  >();
  /** The program's requests being answered, cancellable by `control_cancel_request`. */
  private readonly answering = new Map<string, AbortController>();
  private readonly turns: UserBlock[][] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  /** Why stdin could not be read to its end. */
  private failure: unknown;
  private sent = 0;
  private firstRead: () => void = () => {};
  /** Settles once the first line has been handled (or stdin ended): the program's initialize comes first. */
  readonly firstLine = new Promise<void>((resolve) => {
    this.firstRead = resolve;
  });

  constructor(
    /** Writes one JSON line to stdout (the renderer's writer). */
    private readonly write: (line: JsonObject) => void,
    private readonly warn: (line: string) => void,
  ) {}

  on(subtype: string, handler: ControlHandler): this {
    this.handlers.set(subtype, handler);
    return this;
  }

  /**
   * Reads stdin to its end; the user messages come out of `userMessages()`. Binary data on stdin (no
   * protocol at all) ends the input: `userMessages()` throws it after the turns before it.
   */
  async pump(stdin: AsyncIterable<Uint8Array | string>): Promise<void> {
    let n = 0;
    try {
      for await (const line of textLines(stdin)) {
        n++;
        if (line.trim() === "") continue;
        this.dispatch(line, n);
        this.firstRead();
      }
    } catch (err) {
      this.failure = err;
    } finally {
      this.firstRead();
      this.ended = true;
      this.wake?.();
      for (const [id, waiter] of this.pending) {
        waiter.reject(new Error(`stdin closed before the program answered control request ${id}`));
      }
      this.pending.clear();
    }
  }

  /** The user messages, one turn each, until stdin ends or `signal` aborts (SIGINT while waiting). */
  async *userMessages(signal: AbortSignal): AsyncGenerator<UserBlock[]> {
    const onAbort = () => this.wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    while (!signal.aborted) {
      const next = this.turns.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
    signal.removeEventListener("abort", onAbort);
    if (this.failure !== undefined && !signal.aborted) throw this.failure;
  }

  /** Sends a control request to the program and waits for its answer; aborting withdraws it. */
  request(body: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    if (this.ended) return Promise.reject(new Error("stdin is closed: the program can no longer answer"));
    const requestId = `ion_req_${++this.sent}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(requestId);
        this.write({ type: "control_cancel_request", request_id: requestId });
        reject(new Error(`control request ${body.subtype} was cancelled`));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(requestId, {
        resolve: (answer) => {
          settle();
          resolve(answer);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      });
      this.write({ type: "control_request", request_id: requestId, request: body });
    });
  }

  private dispatch(line: string, n: number): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.warn(`stdin line ${n} skipped: not JSON`);
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.warn(`stdin line ${n} skipped: not a JSON object`);
      return;
    }
    const message = value as JsonObject;
    switch (message.type) {
      case "user":
        this.userLine(message, n);
        break;
      case "control_request":
        void this.answer(message);
        break;
      case "control_response":
        this.response(message.response, n);
        break;
      case "control_cancel_request":
        this.answering.get(String(message.request_id))?.abort();
        break;
      // Claude Code ignores these on input too.
      case "keep_alive":
      case "update_environment_variables":
        break;
      default:
        this.warn(`stdin line ${n} skipped: type is ${JSON.stringify(message.type)}, not "user"`);
    }
  }

  private userLine(message: JsonObject, n: number): void {
    const blocks = textBlocks((message.message as JsonObject | undefined)?.content);
    if (!blocks) {
      this.warn(
        `stdin line ${n} skipped: message.content must be text or an array of {"type":"text","text":…} blocks`,
      );
      return;
    }
    this.turns.push(blocks);
    this.wake?.();
  }

  private async answer(message: JsonObject): Promise<void> {
    const requestId = message.request_id;
    const request = message.request as JsonObject | undefined;
    const subtype = typeof request?.subtype === "string" ? request.subtype : String(request?.subtype);
    const reply = (response: JsonObject) =>
      this.write({ type: "control_response", response: { ...response, request_id: requestId } });
    const handler = this.handlers.get(subtype);
    if (!request || !handler)
      return reply({ subtype: "error", error: `unsupported control request: ${subtype}` });
    const controller = new AbortController();
    const key = String(requestId);
    this.answering.set(key, controller);
    try {
      const body = await handler(request, controller.signal);
      if (!controller.signal.aborted) reply({ subtype: "success", response: body });
    } catch (err) {
      reply({ subtype: "error", error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.answering.delete(key);
    }
  }

  private response(response: unknown, n: number): void {
    const body = (response ?? {}) as JsonObject;
    const id = String(body.request_id);
    const waiter = this.pending.get(id);
    if (!waiter) {
      this.warn(`stdin line ${n}: control_response for unknown request ${id}`);
      return;
    }
    this.pending.delete(id);
    if (body.subtype === "error")
      waiter.reject(new Error(String(body.error ?? "the program answered an error")));
    else waiter.resolve((body.response ?? {}) as JsonObject);
  }
}
