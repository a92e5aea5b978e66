import { describe, expect, test } from "bun:test";
import { createInterface, type Interface } from "node:readline";
import { PassThrough } from "node:stream";
import { ResizedLine } from "../../src/chat/input-resize.ts";

/** A readline over in-memory streams that say they are a terminal `columns` wide. */
function terminal(columns: number): { rl: Interface; output: NodeJS.WriteStream; written: () => string } {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns, rows: 30 });
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const rl = createInterface({
    input: input as unknown as NodeJS.ReadStream,
    output: output as unknown as NodeJS.WriteStream,
    terminal: true,
  });
  return { rl, output: output as unknown as NodeJS.WriteStream, written: () => text };
}

/** A line of `length` characters on the prompt "> ", the cursor at its end. */
function typed(rl: Interface, length: number): void {
  const line = "x".repeat(length);
  Object.assign(rl, { line, cursor: line.length });
  rl.setPrompt("> ");
}

describe("ResizedLine", () => {
  test("asks where the cursor is; a line whose start is on the screen is redrawn", async () => {
    const { rl, output, written } = terminal(40);
    typed(rl, 100); // rows 0-2 at 40 columns, the cursor on row 2
    const resized = new ResizedLine(rl, output);
    let redraws = 0;
    resized.resized(() => redraws++);
    await Bun.sleep(0);
    expect(written()).toEndWith("\x1b[6n");
    // Bun's key decoder splits the report in two keys; both are taken, nothing reaches the line.
    expect(resized.takeReport(undefined, { sequence: "\x1b[12;23" })).toBe(true);
    expect(resized.takeReport("R", { name: "r", sequence: "R", shift: true })).toBe(true);
    expect(redraws).toBe(1);
    expect(resized.takeReport("R", { name: "r", sequence: "R", shift: true })).toBe(false);
    rl.close();
  });

  test("a line whose first rows went above the screen is not redrawn, in either form of the report", () => {
    const { rl, output, written } = terminal(40);
    typed(rl, 100);
    const resized = new ResizedLine(rl, output);
    let redraws = 0;
    resized.resized(() => redraws++);
    // Row 1 of the screen (0-based: 0) holds the cursor, on the line's third row: two rows are gone.
    expect(resized.takeReport(undefined, { sequence: "\x1b[1;23R" })).toBe(true);
    expect(redraws).toBe(0);
    // A later redraw writes the rows on the screen only: the third, of 22 characters.
    const before = written().length;
    resized.refresh(() => redraws++);
    const drawn = written().slice(before);
    expect(redraws).toBe(0);
    expect(drawn.replaceAll(/[^x]/g, "")).toBe("x".repeat(22));
    expect(drawn).not.toContain(">");
    rl.close();
  });

  test("a key that is no report, or a report nobody asked for, is left to the line", () => {
    const { rl, output } = terminal(40);
    const resized = new ResizedLine(rl, output);
    expect(resized.takeReport("R", { name: "r", sequence: "R", shift: true })).toBe(false);
    expect(resized.takeReport(undefined, { sequence: "\x1b[12;23R" })).toBe(false);
    rl.close();
  });

  test("a terminal that does not answer in time gets the whole line redrawn; its late report is still taken", async () => {
    const { rl, output } = terminal(40);
    typed(rl, 100);
    const resized = new ResizedLine(rl, output);
    let redraws = 0;
    resized.resized(() => redraws++);
    await Bun.sleep(300);
    expect(redraws).toBe(1);
    expect(resized.takeReport(undefined, { sequence: "\x1b[12;23" })).toBe(true);
    expect(resized.takeReport("R", { name: "r", sequence: "R", shift: true })).toBe(true);
    expect(redraws).toBe(1);
    rl.close();
  });

  test("a redraw asked for while the report is awaited waits for it, then keeps to the screen", () => {
    const { rl, output, written } = terminal(40);
    typed(rl, 100);
    const resized = new ResizedLine(rl, output);
    let wholes = 0;
    resized.resized(() => wholes++);
    const before = written().length;
    resized.refresh(() => wholes++); // a key's redraw before the terminal answered
    expect(written().length).toBe(before);
    // The answer was given for where the cursor was when asked: row 2 of the line, on the screen's first.
    expect(resized.takeReport(undefined, { sequence: "\x1b[1;23R" })).toBe(true);
    expect(wholes).toBe(0);
    expect(written().slice(before).replaceAll(/[^x]/g, "")).toBe("x".repeat(22));
    rl.close();
  });

  test("a resize in several steps: only the last report is acted on", () => {
    const { rl, output } = terminal(40);
    typed(rl, 100);
    const resized = new ResizedLine(rl, output);
    let redraws = 0;
    resized.resized(() => redraws++);
    resized.resized(() => redraws++);
    expect(resized.takeReport(undefined, { sequence: "\x1b[12;23R" })).toBe(true);
    expect(redraws).toBe(0);
    expect(resized.takeReport(undefined, { sequence: "\x1b[12;23R" })).toBe(true);
    expect(redraws).toBe(1);
    rl.close();
  });
});
