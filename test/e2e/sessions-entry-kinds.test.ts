/**
 * End to end: a session file holding a context message, an extension's state and an entry of a type
 * this ion does not know (as a newer ion would leave it), written with the real store into the
 * sandbox's data dir. `sessions show` and `export` label the context message with its source and never
 * as the user's prompt; the unknown entry is one warning, never corruption; `run -c` sends the context
 * message as a plain user message and appends after the unknown entry with its numbering intact.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { nativeCodec } from "../../src/history/codec.ts";
import { SessionStore } from "../../src/history/store.ts";
import { linesRecord } from "../../src/history/writer.ts";
import { zstdDecode } from "../history/support/fixtures.ts";
import { Sandbox } from "../support/cli.ts";
import { transcript, useOpenAIServer } from "../support/e2e.ts";

const KEY = "test-key-entry-kinds-123";
const { server, env } = useOpenAIServer(KEY);
const RECALL = "Remembered: the user prefers small commits.";
const STRANGER = { type: "plan_v9", n: 4, at: "2026-02-01T12:00:00.000Z", steps: ["tag", "build"] };

/** The session: a prompt, a memory recall, the answer, a plan; then a newer ion's entry. */
async function writeSession(box: Sandbox): Promise<{ id: string; path: string }> {
  const store = SessionStore.forDataDir(box.dataDir);
  const writer = await store.create({
    cwd: box.workspace,
    provider: "openai",
    model: "gpt-4o-mini",
    title: "Tag the release",
  });
  await writer.append([
    { type: "message", message: { role: "user", content: [{ type: "text", text: "tag the release" }] } },
    {
      type: "context_message",
      source: "memory",
      message: { role: "user", content: [{ type: "text", text: RECALL }] },
    },
    {
      type: "message",
      stop_reason: "end_turn",
      message: { role: "assistant", content: [{ type: "text", text: "Tagged v1.2.0." }] },
    },
    { type: "extension_state", extension: "plan", data: { steps: ["tag"], done: 1 } },
  ]);
  await writer.close();
  appendFileSync(writer.path, linesRecord(nativeCodec, [STRANGER]));
  return { id: writer.id, path: writer.path };
}

const warningsIn = (stderr: string) => stderr.split("\n").filter((line) => line.includes("plan_v9"));

function expectNothingMovedAside(box: Sandbox): void {
  expect(readdirSync(join(box.dataDir, "sessions")).filter((name) => name.includes("corrupt"))).toEqual([]);
}

describe("context messages, extension state and unknown entries in a session file", () => {
  test("sessions show: the context message under its source, the plan as a line, one note for the unknown entry", async () => {
    using box = new Sandbox();
    const { id } = await writeSession(box);
    const shown = await box.run(["sessions", "show", id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("── user #0 · ");
    expect(shown.stdout).toContain(`── context from memory #1 · `);
    expect(shown.stdout).toContain(`${RECALL}\n`);
    expect(shown.stdout).not.toContain("── user #1");
    expect(shown.stdout).toContain("── extension state #3: plan ──");
    expect(shown.stdout).not.toContain("plan_v9");
    expect(warningsIn(shown.stderr)).toEqual([
      `ion: note: session ${id}: skipped an entry of a type this ion does not know ("plan_v9"), written by a newer ion or an extension; it stays in the file`,
    ]);
    expectNothingMovedAside(box);
  });

  test("sessions export: the context message under its own heading, not as the user's", async () => {
    using box = new Sandbox();
    const { id } = await writeSession(box);
    const exported = await box.run(["sessions", "export", id]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`## User\n\ntag the release\n`);
    expect(exported.stdout).toContain(`## Context from memory\n\n${RECALL}\n`);
    expect(exported.stdout).not.toContain(`## User\n\n${RECALL}`);
    expect(exported.stdout).toContain("*Extension state: plan.*");
    expectNothingMovedAside(box);
  });

  test("run -c: the context message goes out as a plain user message; the new entries are numbered after the unknown one", async () => {
    using box = new Sandbox();
    const { id, path } = await writeSession(box);
    server.enqueueReply("openai", { text: "Notes written." });
    const run = await box.run(["run", "-c", "-m", "openai/gpt-4o-mini", "now the release notes"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Notes written.");
    // Said with -v only: a newer ion's entries are not a problem to warn about on every run.
    expect(warningsIn(run.stderr)).toEqual([]);

    const request = server.requests.at(-1)!;
    expect(transcript(request)).toEqual([
      "user: tag the release",
      `user: ${RECALL}`,
      "assistant: Tagged v1.2.0.",
      "user: now the release notes",
    ]);
    expect(JSON.stringify(request.body)).not.toContain('"context"');

    const lines = zstdDecode(path)
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { type: string; n?: number });
    expect(lines[0]).toMatchObject({ type: "session", id });
    expect(lines[5]).toEqual(STRANGER);
    expect(lines.slice(1).map((l) => [l.n, l.type])).toEqual([
      [0, "message"],
      [1, "context_message"],
      [2, "message"],
      [3, "extension_state"],
      [4, "plan_v9"],
      [5, "message"],
      [6, "message"],
      [7, "run_end"],
    ]);
    expectNothingMovedAside(box);

    server.enqueueReply("openai", { text: "Done." });
    const verbose = await box.run(["run", "-v", "-c", "-m", "openai/gpt-4o-mini", "and publish"], { env });
    expect(verbose.code).toBe(0);
    expect(warningsIn(verbose.stderr)).toHaveLength(1);
    expect(warningsIn(verbose.stderr)[0]).toContain(
      `session ${id}: skipped an entry of a type this ion does not know`,
    );
  });
});
