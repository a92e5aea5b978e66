import { describe, expect, test } from "bun:test";
import { escapeControls, safeForTerminal, TerminalTextStream } from "../../src/util/terminal-text.ts";

const ESC = "\x1b";

/** Every way of cutting `text` in two, streamed: each must give the same output as the whole. */
function everySplit(text: string): string[] {
  const outputs: string[] = [];
  for (let at = 0; at <= text.length; at++) {
    const stream = new TerminalTextStream();
    outputs.push(stream.push(text.slice(0, at)) + stream.push(text.slice(at)) + stream.end());
  }
  return outputs;
}

describe("safeForTerminal", () => {
  test("drops CSI sequences: clear screen, erase line, cursor moves, colours, private modes", () => {
    expect(
      safeForTerminal(`a${ESC}[2Jb${ESC}[2K${ESC}[1Gc${ESC}[31;1md${ESC}[0m${ESC}[?1049h${ESC}[3;4H`),
    ).toBe("abcd");
  });

  test("drops OSC strings ended by BEL or by ST (ESC \\), e.g. a window title and an OSC 52 clipboard write", () => {
    expect(safeForTerminal(`x${ESC}]0;pwned title\x07y`)).toBe("xy");
    expect(safeForTerminal(`x${ESC}]52;c;ZWNobyBwd25lZA==${ESC}\\y`)).toBe("xy");
    expect(safeForTerminal(`x${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\y`)).toBe("xlinky");
  });

  test("drops DCS, APC, PM and SOS strings, and the short ESC forms (reset, save cursor, charset)", () => {
    expect(
      safeForTerminal(`a${ESC}P1$r0m${ESC}\\b${ESC}_apc${ESC}\\c${ESC}^pm${ESC}\\d${ESC}Xsos${ESC}\\e`),
    ).toBe("abcde");
    expect(safeForTerminal(`a${ESC}cb${ESC}7c${ESC}(Bd${ESC}8e`)).toBe("abcde");
  });

  test("drops 8-bit C1 controls and the sequences they open (CSI U+009B, OSC U+009D … ST U+009C)", () => {
    expect(safeForTerminal("a\u009b2Jb\u009d0;title\u009cc\u0085d\u0090dcs\u009ce")).toBe("abcde");
  });

  test("drops lone C0 controls and DEL; keeps tab, newline, unicode and emoji", () => {
    expect(safeForTerminal("a\x07b\x08c\x00d\x7fe\x0bf\x0cg")).toBe("abcdefg");
    const kept = "col1\tcol2\nÄrger · 日本語 · 👩‍💻 · 🇫🇷 · عربى\n";
    expect(safeForTerminal(kept)).toBe(kept);
  });

  test("CR LF becomes LF and a lone CR a newline, so no line is overwritten", () => {
    expect(safeForTerminal("one\r\ntwo\rthree\r")).toBe("one\ntwo\nthree\n");
  });

  test("an unterminated sequence loses its introducer only: the rest is shown as the text it is", () => {
    expect(safeForTerminal(`done ${ESC}]0;never ended`)).toBe("done ]0;never ended");
    expect(safeForTerminal(`done ${ESC}`)).toBe("done ");
    expect(safeForTerminal(`a${ESC}[12`)).toBe("a[12");
  });

  test("a stray byte inside a CSI ends it there; ESC inside an OSC ends the OSC", () => {
    expect(safeForTerminal(`a${ESC}[2\nJ`)).toBe("a\nJ");
    expect(safeForTerminal(`a${ESC}]0;t${ESC}[2Jb`)).toBe("ab");
  });
});

describe("TerminalTextStream", () => {
  const hostile = `ok ${ESC}[2J${ESC}]0;title\x07${ESC}]52;c;cHduZWQ=${ESC}\\\u009b31m line\r\nnext\rlast ${ESC}(B👍`;

  test("a sequence split anywhere between two pieces is still dropped whole", () => {
    const whole = safeForTerminal(hostile);
    expect(whole).toBe("ok  line\nnext\nlast 👍");
    for (const output of everySplit(hostile)) expect(output).toBe(whole);
  });

  test("plain text passes at once; only a possible sequence start is held back", () => {
    const stream = new TerminalTextStream();
    expect(stream.push("hello ")).toBe("hello ");
    expect(stream.push(`world${ESC}]0;ti`)).toBe("world");
    expect(stream.push("tle\x07!")).toBe("!");
    expect(stream.push("a\r")).toBe("a");
    expect(stream.push("\nb")).toBe("\nb");
    expect(stream.end()).toBe("");
  });

  test("a sequence never ended is given up at the end of the text, or once it grows too long", () => {
    const stream = new TerminalTextStream();
    expect(stream.push(`x${ESC}]0;open`)).toBe("x");
    expect(stream.end()).toBe("]0;open");
    const long = new TerminalTextStream();
    expect(long.push(`${ESC}]52;c;`)).toBe("");
    const shown = long.push("A".repeat(5000));
    expect(shown.startsWith("]52;c;AAAA")).toBe(true);
    expect(shown.includes(ESC)).toBe(false);
  });
});

describe("escapeControls", () => {
  test("writes every control character out visibly, never as itself", () => {
    expect(escapeControls(`touch f ${ESC}[2K${ESC}[1Gecho harmless\r\x07\x00\x7f\u009b`)).toBe(
      "touch f \\x1b[2K\\x1b[1Gecho harmless\\r\\x07\\x00\\x7f\\x9b",
    );
  });

  test("shows direction overrides and zero-width characters; keeps tab, newline and ordinary unicode", () => {
    expect(escapeControls("rm \u202eexe.txt\u200b")).toBe("rm \\u202eexe.txt\\u200b");
    const plain = 'for f in *; do\n\techo "$f" # Ärger 👍\ndone';
    expect(escapeControls(plain)).toBe(plain);
  });
});
