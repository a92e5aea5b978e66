import { describe, expect, test } from "bun:test";
import { DoubleEsc, escPresses, type Key, TypeAhead } from "../../src/chat/input-keys.ts";

const char = (c: string): [string, Key] => [c, { name: c, sequence: c }];
const ESC: Key = { name: "escape", sequence: "\x1b" };

describe("TypeAhead", () => {
  test("keeps printable text, Enter as a line break, and edits with Backspace and Ctrl+U", () => {
    const ahead = new TypeAhead();
    for (const c of "héllo 漢字") ahead.key(...char(c));
    ahead.key("\x7f", { name: "backspace", sequence: "\x7f" });
    ahead.key("\r", { name: "return", sequence: "\r" });
    ahead.key(...char("x"));
    expect(ahead.take()).toBe("héllo 漢\nx");
    expect(ahead.take()).toBe("");
    ahead.key(...char("gone"));
    ahead.key("\x15", { name: "u", ctrl: true, sequence: "\x15" });
    expect(ahead.take()).toBe("");
  });

  test("drops control keys, escape sequences, Alt+letters and blank lines around the text", () => {
    const ahead = new TypeAhead();
    ahead.key("\r", { name: "return" });
    ahead.key(undefined, { name: "up", sequence: "\x1b[A" });
    ahead.key("\x1b[A", { name: "up", sequence: "\x1b[A" });
    ahead.key("\x1bb", { name: "b", meta: true, sequence: "\x1bb" });
    ahead.key("\t", { name: "tab", sequence: "\t" });
    ahead.key("\x04", { name: "d", ctrl: true, sequence: "\x04" });
    ahead.key(undefined, ESC);
    ahead.key(...char("k"));
    ahead.add("[pasted text #1 +2 lines]");
    ahead.key("\r", { name: "return" });
    expect(ahead.take()).toBe("k[pasted text #1 +2 lines]");
  });
});

describe("Esc twice", () => {
  test("counts a lone Esc as one press and ESC ESC as two; arrows and Alt+letters as none", () => {
    expect(escPresses(ESC)).toBe(1);
    expect(escPresses({ name: "escape", meta: true, sequence: "\x1b\x1b" })).toBe(2);
    expect(escPresses({ name: "up", sequence: "\x1b[A" })).toBe(0);
    expect(escPresses({ name: "up", meta: true, sequence: "\x1b\x1b[A" })).toBe(0);
    expect(escPresses({ name: "b", meta: true, sequence: "\x1bb" })).toBe(0);
  });

  test("two presses within 1.5 s cancel; a slower second press starts over; another key in between breaks it", () => {
    let now = 0;
    const esc = new DoubleEsc(1500, () => now);
    expect(esc.press(ESC)).toBe(false);
    now = 1400;
    expect(esc.press(ESC)).toBe(true);
    now = 2000;
    expect(esc.press(ESC)).toBe(false); // the pair was used up
    now = 3600;
    expect(esc.press(ESC)).toBe(false); // 1.6 s later: a new first press
    now = 3700;
    expect(esc.press({ name: "up", sequence: "\x1b[A" })).toBe(false);
    expect(esc.press(ESC)).toBe(false);
    now = 3800;
    esc.reset();
    expect(esc.press(ESC)).toBe(false);
    expect(esc.press({ name: "escape", meta: true, sequence: "\x1b\x1b" })).toBe(true);
  });
});
