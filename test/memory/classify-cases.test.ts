import { describe, expect, test } from "bun:test";
import { isTransactional } from "../../src/memory/classify.ts";

const TRANSACTIONAL = [
  "",
  "   ",
  "hi",
  "Hello!",
  "hey there",
  "good morning",
  "thanks",
  "Thank you very much!",
  "thanks a lot",
  "thx",
  "ok",
  "OK.",
  "okay, great",
  "ok?",
  "sounds good",
  "got it",
  "go ahead",
  "yes please",
  "no",
  "perfect, thanks!",
  "bye",
  "/help",
  "/memory search deploy",
  "/model openai/gpt-4o-mini",
  "run tests",
  "fix it",
  "continue",
  "👍",
  "...",
];

const RECALL = [
  "which port?",
  "why?",
  "where's the config",
  "what did we decide about the database",
  "remember the staging host",
  "how do I deploy the api",
  "fix the flaky test in the parser",
  "thanks, now add a retry to the upload",
  "ok, and what about the cache?",
  "hello, can you remind me which port staging uses?",
  "use yarn instead of npm here",
  "Quelle est la commande de déploiement ?",
  "デプロイの手順は？",
];

describe("isTransactional", () => {
  test.each(TRANSACTIONAL)("skips %p", (text) => {
    expect(isTransactional(text)).toBe(true);
  });
  test.each(RECALL)("recalls for %p", (text) => {
    expect(isTransactional(text)).toBe(false);
  });
});

test("Chinese and Japanese count by characters, and a full-width question mark asks", () => {
  expect(isTransactional("デプロイの手順")).toBe(false);
  expect(isTransactional("手順？")).toBe(false);
  expect(isTransactional("好")).toBe(true);
});
