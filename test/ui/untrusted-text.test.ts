/**
 * The renderers with colour on: what a model or a tool wrote reaches the terminal without its control
 * sequences, even split across deltas, while ion's own colours stay.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent } from "../../src/agent/events.ts";
import { ChatRenderer } from "../../src/ui/chat-render.ts";
import { createStyle } from "../../src/ui/style.ts";
import { textRenderer } from "../../src/ui/text.ts";

const ESC = "\x1b";
const CYAN_DOT = `${ESC}[36m●${ESC}[39m`;
const DIM = `${ESC}[2m`;

/** Every escape sequence in `text` that is not an SGR colour/style (the only kind ion writes). */
function foreignSequences(text: string): string[] {
  const sequences = text.match(new RegExp(`${ESC}(\\[[0-9;?]*[ -/]*[@-~]|.)`, "g")) ?? [];
  const sgr = new RegExp(`^${ESC}\\[[0-9;]*m$`);
  return sequences.filter((s) => !sgr.test(s));
}

function collector() {
  const chunks: string[] = [];
  return { writer: { write: (text: string) => void chunks.push(text) }, text: () => chunks.join("") };
}

const EVENTS: AgentEvent[] = [
  { type: "thinking_delta", text: `Hmm${ESC}]0;ti` },
  { type: "thinking_delta", text: `tle\x07 ok.\n` },
  { type: "text_delta", text: `Answer${ESC}[` },
  { type: "text_delta", text: `2J here${ESC}]52;c;UFdORUQ=${ESC}` },
  { type: "text_delta", text: "\\ done." },
  { type: "tool_start", id: "t1", name: `bash${ESC}[2K`, input: { command: `ls ${ESC}[1Afile\u009b31m` } },
  {
    type: "tool_end",
    id: "t1",
    name: "bash",
    is_error: true,
    content: `no such file${ESC}[2J`,
    duration_ms: 5,
  },
];

describe("untrusted text with colour on", () => {
  test("chat: the answer, thinking and tool lines lose their sequences; ion's colours stay", async () => {
    const out = collector();
    const progress = collector();
    const renderer = new ChatRenderer({
      out: out.writer,
      progress: progress.writer,
      style: createStyle(true),
      color: true,
      interactive: false,
      showThinking: true,
    });
    for (const event of EVENTS) await renderer.onEvent(event);
    await renderer.suspend();
    expect(foreignSequences(out.text() + progress.text())).toEqual([]);
    expect(Bun.stripANSI(out.text())).toBe("Hmm ok.\nAnswer here done.\n");
    expect(out.text()).toContain(DIM);
    expect(progress.text()).toContain(`${CYAN_DOT} bash  `);
    expect(Bun.stripANSI(progress.text())).toContain("● bash  ls file\n  ✗ no such file\n");
    expect(progress.text()).not.toContain("\u009b");
  });

  test("run -o text on a terminal: the streamed answer and -v thinking lose their sequences", () => {
    const stdout = collector();
    const stderr = collector();
    const renderer = textRenderer({
      stdout: stdout.writer,
      stderr: stderr.writer,
      stdoutIsTTY: true,
      stderrIsTTY: true,
      quiet: false,
      verbose: true,
      partial: false,
      color: true,
    });
    for (const event of EVENTS) renderer.onEvent(event);
    renderer.close();
    // The tool line on the shared terminal starts on a line of its own.
    expect(stdout.text()).toBe("Answer here done.\n");
    expect(foreignSequences(stderr.text())).toEqual([]);
    expect(Bun.stripANSI(stderr.text())).toContain("Hmm ok.\n");
    expect(stderr.text()).toContain(`${CYAN_DOT} bash  `);
    expect(stderr.text()).not.toContain("\u009b");
  });
});
