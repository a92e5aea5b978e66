import { describe, expect, test } from "bun:test";
import { tokens } from "../../src/commands/models-list.ts";
import { formatContext } from "../../src/ui/first-run.ts";
import { count, counted, formatTokens } from "../../src/util/numbers.ts";

describe("formatTokens", () => {
  test("below a thousand: the number, whole", () => {
    expect(formatTokens(0)).toBe("0");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(262.4)).toBe("262");
  });

  test("below ten thousand: thousands with one decimal, none when it is 0", () => {
    expect(formatTokens(1000)).toBe("1k");
    expect(formatTokens(3456)).toBe("3.5k");
    expect(formatTokens(8192)).toBe("8.2k");
    expect(formatTokens(9949)).toBe("9.9k");
  });

  test("from ten thousand: whole thousands", () => {
    expect(formatTokens(9950)).toBe("10k");
    expect(formatTokens(64_000)).toBe("64k");
    expect(formatTokens(128_000)).toBe("128k");
    expect(formatTokens(152_340)).toBe("152k");
    expect(formatTokens(999_499)).toBe("999k");
  });

  test("millions with one decimal, none when it is 0", () => {
    expect(formatTokens(999_500)).toBe("1M");
    expect(formatTokens(1_048_576)).toBe("1M");
    expect(formatTokens(1_500_000)).toBe("1.5M");
    expect(formatTokens(2_000_000)).toBe("2M");
  });

  test("the model picker and the models table show windows the same way, with their own word for unknown", () => {
    for (const n of [950, 8192, 128_000, 1_048_576]) {
      expect(formatContext(n)).toBe(formatTokens(n));
      expect(tokens(n)).toBe(formatTokens(n));
    }
    expect(formatContext(null)).toBe("?");
    expect(tokens(null)).toBe("-");
    expect(tokens(0)).toBe("-");
  });
});

describe("count and counted", () => {
  test("thousands separated; a noun with a plain plural", () => {
    expect(count(12_345)).toBe("12,345");
    expect(counted(1, "message")).toBe("1 message");
    expect(counted(3, "message")).toBe("3 messages");
  });
});
