import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkBaseURL,
  containsApiKey,
  getAt,
  keyRef,
  knownKeysAt,
  parseKeyPath,
  parseValue,
  removeKey,
  setAt,
  setConfigValue,
  suggestPath,
  unsetAt,
  unsetConfigValue,
} from "../../src/config/edit.ts";
import { IonError } from "../../src/errors.ts";

let root: string;
let file: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "ion-edit-"));
  file = join(root, "config.json");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function failure(work: Promise<unknown>): Promise<IonError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IonError);
  return err as IonError;
}

describe("paths and values", () => {
  test("dotted paths split; empty segments and prototype keys are usage errors", () => {
    expect(parseKeyPath("providers.openai.api_base")).toEqual(["providers", "openai", "api_base"]);
    expect(parseKeyPath("model")).toEqual(["model"]);
    for (const bad of ["", "a..b", ".a", "a.", "__proto__.x", "providers.constructor"]) {
      expect(() => parseKeyPath(bad)).toThrow(IonError);
    }
  });

  test("VALUE is JSON when it parses, else the text", () => {
    expect(parseValue("42")).toBe(42);
    expect(parseValue("0.5")).toBe(0.5);
    expect(parseValue("true")).toBe(true);
    expect(parseValue("null")).toBe(null);
    expect(parseValue('["a","b"]')).toEqual(["a", "b"]);
    expect(parseValue('{"a":1}')).toEqual({ a: 1 });
    expect(parseValue('"42"')).toBe("42");
    expect(parseValue("high")).toBe("high");
    expect(parseValue("anthropic/claude-sonnet-4-5")).toBe("anthropic/claude-sonnet-4-5");
    expect(parseValue("{not json")).toBe("{not json");
  });

  test("getAt / setAt / unsetAt on nested objects and arrays", () => {
    const doc: Record<string, unknown> = { model: "a/b", tools: { disabled: ["bash"] } };
    expect(getAt(doc, ["tools", "disabled", "0"])).toBe("bash");
    expect(getAt(doc, ["tools", "disabled", "1"])).toBeUndefined();
    expect(getAt(doc, ["model", "length"])).toBeUndefined();

    setAt(doc, ["providers", "openai", "api_base"], "http://x/v1");
    setAt(doc, ["tools", "disabled", "1"], "grep");
    setAt(doc, ["model"], "c/d");
    expect(doc).toEqual({
      model: "c/d",
      tools: { disabled: ["bash", "grep"] },
      providers: { openai: { api_base: "http://x/v1" } },
    });
    expect(Object.keys(doc)).toEqual(["model", "tools", "providers"]); // existing keys keep their place

    expect(() => setAt(doc, ["model", "x"], 1)).toThrow(/model is a string, not an object/);
    expect(() => setAt(doc, ["tools", "disabled", "5"], "x")).toThrow(/array of 2/);

    expect(unsetAt(doc, ["tools", "disabled", "0"])).toBe(true);
    expect(doc.tools).toEqual({ disabled: ["grep"] });
    // Objects emptied by the removal go too.
    expect(unsetAt(doc, ["providers", "openai", "api_base"])).toBe(true);
    expect(doc).toEqual({ model: "c/d", tools: { disabled: ["grep"] } });
    expect(unsetAt(doc, ["nothing", "here"])).toBe(false);
    expect(unsetAt(doc, ["model", "x"])).toBe(false);
  });

  test("key paths and values carrying keys are recognised", () => {
    expect(keyRef(["api_key"])).toEqual({ kind: "top" });
    expect(keyRef(["providers", "openai", "api_key"])).toEqual({ kind: "provider", providerId: "openai" });
    expect(keyRef(["providers", "openai", "api_base"])).toBeUndefined();
    expect(keyRef(["providers", "api_key"])).toBeUndefined();
    expect(containsApiKey({ openai: { api_key: "k" } })).toBe(true);
    expect(containsApiKey([{ x: { api_key: "k" } }])).toBe(true);
    expect(containsApiKey({ openai: { api_base: "u" } })).toBe(false);
    expect(containsApiKey("api_key")).toBe(false);
  });

  test("the schema gives known names and did-you-mean suggestions", () => {
    expect(knownKeysAt([])).toContain("model");
    expect(knownKeysAt(["providers", "openai"])).toContain("api_base");
    expect(knownKeysAt(["providers"])).toBeUndefined(); // a record: any id
    expect(knownKeysAt(["memory"])).toContain("budget_tokens");
    expect(knownKeysAt(["skills"])).toBeUndefined(); // loose
    expect(suggestPath(["modle"])).toBe("model");
    expect(suggestPath(["providers", "openai", "api_bse"])).toBe("providers.openai.api_base");
    expect(suggestPath(["history", "retention_day"])).toBe("history.retention_days");
    expect(suggestPath(["model"])).toBeUndefined();
    expect(suggestPath(["zzzzzzzzzz"])).toBeUndefined();
  });

  test("base URLs: http(s) URLs, and host:port for ollama", () => {
    expect(checkBaseURL("openai", "https://api.example.com/v1")).toBeUndefined();
    expect(checkBaseURL("openai", "not-a-url")).toMatch(/http\(s\) URL/);
    expect(checkBaseURL("openai", "ftp://example.com")).toMatch(/http\(s\) URL/);
    expect(checkBaseURL("ollama", "127.0.0.1:11434")).toBeUndefined();
    expect(checkBaseURL("ollama", "http://gpu-box:11434")).toBeUndefined();
    expect(checkBaseURL("ollama", "http://[bad")).toMatch(/host:port/);
    expect(checkBaseURL(undefined, "")).toBeUndefined();
  });
});

describe("setConfigValue / unsetConfigValue", () => {
  test("creates the file, then keeps key order and 2-space formatting", async () => {
    await setConfigValue(file, ["model"], "anthropic/claude-sonnet-4-5");
    expect(await readFile(file, "utf8")).toBe('{\n  "model": "anthropic/claude-sonnet-4-5"\n}\n');

    await writeFile(file, '{"thinking":"low","model":"a/b","history":{"retention_days":7}}');
    await setConfigValue(file, ["model"], "c/d");
    await setConfigValue(file, ["history", "compact_threshold"], 0.7);
    await setConfigValue(file, ["context_window"], 32000);
    expect(await readFile(file, "utf8")).toBe(
      [
        "{",
        '  "thinking": "low",',
        '  "model": "c/d",',
        '  "history": {',
        '    "retention_days": 7,',
        '    "compact_threshold": 0.7',
        "  },",
        '  "context_window": 32000',
        "}",
        "",
      ].join("\n"),
    );
  });

  test("an invalid result is refused naming the field and the expectation; the file is untouched", async () => {
    const original = '{\n    "model": "a/b"\n}';
    await writeFile(file, original);
    const cases: Array<[string[], unknown, RegExp]> = [
      [["thinking"], "max", /^cannot set thinking: expected one of "off"\|"low"\|"medium"\|"high"$/],
      [["context_window"], "big", /^cannot set context_window: expected number/],
      [["context_window"], -5, /^cannot set context_window: /],
      [
        ["providers", "openai", "api_base"],
        "not-a-url",
        /^cannot set providers\.openai\.api_base: expected an http/,
      ],
      [["tools", "disabled"], "bash", /^cannot set tools\.disabled: expected array/],
      [["history", "compact_threshold"], 2, /^cannot set history\.compact_threshold: /],
    ];
    for (const [path, value, message] of cases) {
      const err = await failure(setConfigValue(file, path, value));
      expect(err.code).toBe("config");
      expect(err.message).toMatch(message);
      expect(await readFile(file, "utf8")).toBe(original);
    }
  });

  test("top-level api_base is checked for the selected provider (ollama takes host:port)", async () => {
    await writeFile(file, '{"provider":"ollama"}');
    await setConfigValue(file, ["api_base"], "127.0.0.1:11434");
    await writeFile(file, '{"model":"openai/gpt-4o"}');
    const err = await failure(setConfigValue(file, ["api_base"], "127.0.0.1:11434"));
    expect(err.message).toMatch(/^cannot set api_base: expected an http\(s\) URL/);
  });

  test("an existing bad api_base does not block unrelated edits", async () => {
    await writeFile(file, '{"providers":{"x":{"api_base":"odd"}}}');
    expect((await setConfigValue(file, ["thinking"], "high")).changed).toBe(true);
  });

  test("unknown keys are reported with a suggestion and still written", async () => {
    await writeFile(file, '{"old_unknown":1}');
    const result = await setConfigValue(file, ["modle"], "a/b");
    expect(result.unknownKeys).toEqual([{ key: "modle", suggestion: "model" }]); // old_unknown was there before
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ old_unknown: 1, modle: "a/b" });
  });

  test("a value another field's error would block names that field", async () => {
    await writeFile(file, '{"thinking":"max"}');
    const err = await failure(setConfigValue(file, ["model"], "a/b"));
    expect(err.message).toMatch(
      /^cannot set model: .*config\.json would be invalid at thinking: expected one of/,
    );
    // ...while fixing the broken field itself works.
    await setConfigValue(file, ["thinking"], "high");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ thinking: "high" });
  });

  test("malformed JSON and non-object files are never rewritten", async () => {
    await writeFile(file, "{oops");
    expect((await failure(setConfigValue(file, ["model"], "a/b"))).message).toMatch(/invalid JSON/);
    expect(await readFile(file, "utf8")).toBe("{oops");
    await writeFile(file, "[1]");
    expect((await failure(setConfigValue(file, ["model"], "a/b"))).message).toMatch(/expected a JSON object/);
    expect(await readFile(file, "utf8")).toBe("[1]");
  });

  test("setting the same value or unsetting a missing one writes nothing", async () => {
    await writeFile(file, '{"model":"a/b"}');
    expect((await setConfigValue(file, ["model"], "a/b")).changed).toBe(false);
    expect((await unsetConfigValue(file, ["thinking"])).changed).toBe(false);
    expect(await readFile(file, "utf8")).toBe('{"model":"a/b"}');
    expect((await unsetConfigValue(join(root, "missing.json"), ["model"])).changed).toBe(false);
  });

  test("unset removes nested values and the objects they leave empty", async () => {
    await writeFile(file, '{"model":"a/b","providers":{"openai":{"api_base":"https://x/v1"}}}');
    expect((await unsetConfigValue(file, ["providers", "openai", "api_base"])).changed).toBe(true);
    expect(await readFile(file, "utf8")).toBe('{\n  "model": "a/b"\n}\n');
  });

  test("keeps the existing file's mode", async () => {
    await writeFile(file, "{}", { mode: 0o640 });
    await setConfigValue(file, ["thinking"], "low");
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });
});

describe("removeKey", () => {
  test("removes one provider's key and keeps keys.json 0600", async () => {
    const keys = join(root, "keys.json");
    await writeFile(keys, JSON.stringify({ openai: "sk-test-00000000aaaa", groq: "gsk-test-0000bbbb" }), {
      mode: 0o644,
    });
    expect(await removeKey(root, "openai")).toBe(true);
    expect(JSON.parse(await readFile(keys, "utf8"))).toEqual({ groq: "gsk-test-0000bbbb" });
    expect((await stat(keys)).mode & 0o777).toBe(0o600);
    expect(await removeKey(root, "openai")).toBe(false);
    expect(await removeKey(join(root, "nowhere"), "openai")).toBe(false);
  });
});
