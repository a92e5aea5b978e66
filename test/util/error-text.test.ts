import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errnoOf, errnoText, messageOf, systemMessage } from "../../src/util/error-text.ts";

/** A real failed system call, so the tests see the runtime's own message and code. */
function failedRead(path: string): unknown {
  try {
    readFileSync(path);
  } catch (err) {
    return err;
  }
  throw new Error(`reading ${path} did not fail`);
}

describe("messageOf", () => {
  test("an Error gives its message", () => {
    expect(messageOf(new TypeError("bad input"))).toBe("bad input");
  });

  test("anything else thrown is shown as a string", () => {
    expect(messageOf("plain text")).toBe("plain text");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(undefined)).toBe("undefined");
    expect(messageOf({ toString: () => "custom" })).toBe("custom");
  });
});

describe("errnoOf", () => {
  test("the code of a failed system call", () => {
    expect(errnoOf(failedRead("/nonexistent-ion-test/file"))).toBe("ENOENT");
  });

  test("undefined for errors without a string code, and for non-errors", () => {
    expect(errnoOf(new Error("no code"))).toBeUndefined();
    expect(errnoOf(Object.assign(new Error("numeric"), { code: 7 }))).toBeUndefined();
    expect(errnoOf({ code: "ENOENT" })).toBeUndefined();
  });
});

describe("systemMessage", () => {
  test("drops the path the runtime appends", () => {
    const dir = mkdtempSync(join(tmpdir(), "ion-error-text-"));
    try {
      const message = systemMessage(failedRead(join(dir, "missing")));
      expect(message).toStartWith("ENOENT");
      expect(message).not.toContain(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("Bun's 'rm returned' form becomes code: words", () => {
    const err = Object.assign(new Error("Path is a directory: rm returned EISDIR (is a directory) /x/y"), {
      code: "EISDIR",
    });
    expect(systemMessage(err)).toBe("EISDIR: is a directory");
  });

  test("an error without a code keeps its whole message", () => {
    expect(systemMessage(new Error("EACCES: looks like one, /but/is/not"))).toBe(
      "EACCES: looks like one, /but/is/not",
    );
  });
});

describe("errnoText", () => {
  test("common codes in words, with the code", () => {
    expect(errnoText(failedRead("/nonexistent-ion-test/file"))).toBe("no such file, ENOENT");
  });

  test("a rare code alone; no code: the message", () => {
    expect(errnoText(Object.assign(new Error("x"), { code: "EXDEV" }))).toBe("EXDEV");
    expect(errnoText(new Error("just words"))).toBe("just words");
  });
});
