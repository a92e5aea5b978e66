/**
 * bash reports its latest output line while it runs (throttled), and says when it was stopped by its
 * time limit, for the front end's status and end lines.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { OutputTail } from "../../src/tools/output-tail.ts";
import type { ToolUpdate } from "../../src/tools/types.ts";

const dir = mkdtempSync(join(tmpdir(), "ion-bash-progress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const encode = (text: string) => new TextEncoder().encode(text);

describe("OutputTail", () => {
  test("reports the last non-blank line, the newest after a carriage return, split characters whole", () => {
    const seen: ToolUpdate[] = [];
    const tail = new OutputTail((update) => seen.push(update), 0);
    const out = tail.stream();
    out(encode("first\nsecond\n\n"));
    const bytes = encode("progress 10%\rprogress 90% é");
    out(bytes.subarray(0, bytes.length - 1));
    out(bytes.subarray(bytes.length - 1));
    expect(seen.map((u) => u.output_tail)).toEqual(["second", "progress 90% ", "progress 90% é"]);
    tail.close();
  });

  test("at most one report per interval, the newest line last; none after close", async () => {
    // Timing-independent: each step waits on what was reported and when, never on a fixed sleep
    // that a loaded machine could overrun.
    const interval = 40;
    const seen: string[] = [];
    let lastReportAt = 0;
    const tail = new OutputTail((update) => {
      seen.push(update.output_tail ?? "");
      lastReportAt = Date.now();
    }, interval);
    const out = tail.stream();
    for (let i = 1; i <= 50; i++) out(encode(`line-${i}\n`));
    expect(seen).toEqual(["line-1"]);
    const deadline = Date.now() + 5000;
    while (seen.length < 2 && Date.now() < deadline) await Bun.sleep(5);
    expect(seen).toEqual(["line-1", "line-50"]);
    while (Date.now() <= lastReportAt + interval) await Bun.sleep(5);
    out(encode("reported at once\n"));
    expect(seen).toEqual(["line-1", "line-50", "reported at once"]);
    out(encode("within the interval\n"));
    tail.close();
    await Bun.sleep(interval * 2);
    expect(seen).toEqual(["line-1", "line-50", "reported at once"]);
  });
});

describe("bash progress", () => {
  test("a running command's lines are reported through ctx.onUpdate before it ends", async () => {
    const seen: string[] = [];
    const outcome = await bashTool.execute(
      { command: "echo step-1; sleep 0.4; echo step-2 >&2; sleep 0.4; echo step-3" },
      {
        cwd: dir,
        allow: [],
        signal: new AbortController().signal,
        callId: "call-1",
        sessionId: "s",
        onUpdate: (update) => seen.push(update.output_tail ?? ""),
      },
    );
    expect(outcome.is_error).toBe(false);
    expect(seen).toEqual(["step-1", "step-2", "step-3"]);
  });

  test("a timeout is told apart from a kill in the metadata", async () => {
    const outcome = await bashTool.execute(
      { command: "sleep 5", timeout_ms: 300 },
      { cwd: dir, allow: [], signal: new AbortController().signal, callId: "call-1", sessionId: "s" },
    );
    expect(outcome.is_error).toBe(true);
    expect(outcome.metadata).toEqual({ exitCode: null, stopped: { reason: "timeout", after_ms: 300 } });

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const cancelled = await bashTool.execute(
      { command: "sleep 5" },
      { cwd: dir, allow: [], signal: controller.signal, callId: "call-2", sessionId: "s" },
    );
    expect(cancelled.metadata).toEqual({ exitCode: null, stopped: { reason: "cancel" } });
  });
});
