import { expect, test } from "bun:test";
import { kindOf } from "../../src/history/lock-holder.ts";

test("the holder's command line says whether it is a chat or a run", () => {
  expect(kindOf(["ion"])).toBe("an ion chat");
  expect(kindOf(["/usr/local/bin/ion", "-c"])).toBe("an ion chat");
  expect(kindOf(["ion", "chat", "--new"])).toBe("an ion chat");
  expect(kindOf(["bun", "/src/main.ts", "--continue"])).toBe("an ion chat");
  expect(kindOf(["ion", "run", "-c", "fix it"])).toBe("`ion run`");
  expect(kindOf(["bun", "/src/main.ts", "run", "-o", "json", "x"])).toBe("`ion run`");
  expect(kindOf(["ion", "-m", "openai/gpt-4o", "--cwd", "/w"])).toBe("an ion chat");
  // What it cannot tell is left unsaid, not guessed.
  expect(kindOf(["ion", "--model=openai/gpt-4o"])).toBe("an ion chat");
  expect(kindOf(["ion", "-mopenai/gpt-4o", "x"])).toBeUndefined();
  expect(kindOf(["bun", "test"])).toBeUndefined();
});
