import { describe, expect, test } from "bun:test";
import { parseSlash, SlashRegistry } from "../../src/chat/registry.ts";
import { nextOf, promptFor } from "../../src/chat/repl.ts";
import { builtinCommands } from "../../src/chat/slash.ts";

type Ctx = { models: string[] };
const ran: string[] = [];
const registry = () =>
  new SlashRegistry<Ctx>().add(
    { name: "help", summary: "commands and keys", run: () => void ran.push("help") },
    {
      name: "model",
      args: "[id]",
      summary: "switch model",
      complete: (_partial, ctx) => ctx.models,
      run: (args) => void ran.push(`model ${args}`),
    },
    {
      name: "mode",
      args: "read|ask|auto",
      summary: "permission mode",
      complete: () => ["read", "ask", "auto"],
      run: () => {},
    },
    { name: "quit", aliases: ["exit", "q"], summary: "leave", run: () => void ran.push("quit") },
  );
const ctx: Ctx = { models: ["openai/gpt-4o", "openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5"] };

describe("slash registry", () => {
  test("parses a slash line into a lower-case name and trimmed arguments", () => {
    expect(parseSlash("/Model  openai/gpt-4o ")).toEqual({ name: "model", args: "openai/gpt-4o" });
    expect(parseSlash("/compact keep the plan\nand files")).toEqual({
      name: "compact",
      args: "keep the plan\nand files",
    });
    expect(parseSlash("hello")).toBeUndefined();
  });

  test("finds commands by name and alias; a name is defined once", () => {
    const r = registry();
    expect(r.find("exit")?.name).toBe("quit");
    expect(r.find("QUIT")?.name).toBe("quit");
    expect(r.find("nope")).toBeUndefined();
    expect(() => r.add({ name: "help", summary: "again", run: () => {} })).toThrow("defined twice");
  });

  test("did you mean: the closest names for a typo", async () => {
    const r = registry();
    expect((await r.suggest("modle")).slice(0, 2).sort()).toEqual(["mode", "model"]);
    expect(await r.suggest("hlep")).toContain("help");
  });

  test("completion: command names first, then the command's own arguments", async () => {
    const r = registry();
    expect(await r.complete("/he", ctx)).toEqual([["/help "], "/he"]);
    expect((await r.complete("/mo", ctx))[0]).toEqual(["/model ", "/mode "]);
    expect(await r.complete("/model openai/gpt-4o-", ctx)).toEqual([
      ["openai/gpt-4o-mini"],
      "openai/gpt-4o-",
    ]);
    expect(await r.complete("/mode a", ctx)).toEqual([["ask", "auto"], "a"]);
    expect(await r.complete("/quit x", ctx)).toEqual([[], "/quit x"]);
    expect(await r.complete("plain text", ctx)).toEqual([[], "plain text"]);
  });

  test("help lists every command with its arguments, aligned", () => {
    const lines = registry().help();
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^\/model \[id\] +switch model$/);
    const columns = lines.map((l, n) => l.indexOf(registry().list()[n]!.summary));
    expect(new Set(columns).size).toBe(1);
  });

  test("the built-in table has every command of SPEC §7 and later ones can be added", () => {
    const names = builtinCommands()
      .list()
      .map((c) => c.name);
    for (const name of [
      "help",
      "model",
      "provider",
      "think",
      "mode",
      "compact",
      "clear",
      "resume",
      "sessions",
      "skills",
      "skill",
      "cost",
      "context",
      "export",
      "memory",
      "quit",
    ])
      expect(names).toContain(name);
    const extended = builtinCommands().add({ name: "notes", summary: "search notes", run: () => {} });
    expect(extended.find("notes")?.summary).toBe("search notes");
  });
});

describe("prompt and key cycles", () => {
  test("the prompt shows thinking and mode only when they are not the defaults", () => {
    expect(promptFor("off", "ask")).toBe("> ");
    expect(promptFor("medium", "ask")).toBe("[med] > ");
    expect(promptFor("off", "auto")).toBe("[auto] > ");
    expect(promptFor("high", "read")).toBe("[high read] > ");
  });

  test("Ctrl+T and Shift+Tab cycle round", () => {
    expect(nextOf(["off", "low", "medium", "high"], "high")).toBe("off");
    expect(nextOf(["read", "ask", "auto"], "ask")).toBe("auto");
  });
});
