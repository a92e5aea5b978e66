import { describe, expect, test } from "bun:test";
import type { ArgsDef, CommandDef } from "citty";
import { COMMANDS } from "../../src/cli.ts";
import { bashScript } from "../../src/completion/bash.ts";
import { fishScript } from "../../src/completion/fish.ts";
import { allCommands, type CommandNode, commandNode, commandTree } from "../../src/completion/tree.ts";
import { zshScript } from "../../src/completion/zsh.ts";

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
const resolve = async <T>(value: Resolvable<T>): Promise<T> =>
  typeof value === "function" ? (value as () => T | Promise<T>)() : value;

const root = await commandTree(COMMANDS);
const node = (...path: string[]) => {
  const found = allCommands(root).find((n) => n.path.join(" ") === path.join(" "));
  if (!found) throw new Error(`no command ${path.join(" ")}`);
  return found;
};
const flag = (n: CommandNode, spelling: string) => n.flags.find((f) => f.spellings.includes(spelling));

/** Every spelling a command's args define, read straight from citty's definitions (not from tree.ts). */
function spellingsOf(args: ArgsDef): string[] {
  const out: string[] = ["-h", "--help"];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    if (def.type === "boolean" && def.default === true) {
      out.push(`--no-${name}`);
      continue;
    }
    const aliases = "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
    for (const word of [name, ...aliases]) out.push(word.length === 1 ? `-${word}` : `--${word}`);
  }
  return out.sort();
}

/** Each command path and its flag spellings, walked from COMMANDS directly. */
async function definedCommands(): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const walk = async (command: CommandDef, path: string[]) => {
    const meta = (await resolve(command.meta ?? {})) ?? {};
    if (meta.hidden) return;
    found.set(path.join(" "), spellingsOf(((await resolve(command.args ?? {})) ?? {}) as ArgsDef));
    const subs = command.subCommands ? await resolve(command.subCommands) : {};
    for (const [name, sub] of Object.entries(subs ?? {}))
      await walk((await resolve(sub)) as CommandDef, [...path, name]);
  };
  for (const [name, load] of Object.entries(COMMANDS)) await walk(await load(), [name]);
  return found;
}

/** `'path') REPLY='words' ;;` arms of a generated bash function. */
function bashArms(script: string, fn: string): Map<string, string[]> {
  const body = script.slice(script.indexOf(`${fn}() {`), script.indexOf("\n}", script.indexOf(`${fn}() {`)));
  const arms = new Map<string, string[]>();
  for (const match of body.matchAll(/^ {4}'([^']*)'\) REPLY='([^']*)' ;;$/gm))
    arms.set(match[1]!, match[2]!.split(" ").filter(Boolean));
  return arms;
}

describe("the command tree", () => {
  test("every command and every flag citty defines is in the bash script, and nothing else", async () => {
    const defined = await definedCommands();
    const flags = bashArms(bashScript(root), "__ion_flags");
    flags.delete(""); // ion itself: chat's flags and --version, checked below
    expect(new Map([...flags].map(([path, words]) => [path, [...words].sort()]))).toEqual(defined);
    const subcommands = bashArms(bashScript(root), "__ion_subcommands");
    for (const path of defined.keys()) {
      const parent = path.split(" ").slice(0, -1).join(" ");
      expect(subcommands.get(parent)).toContain(path.split(" ").at(-1));
    }
  });

  test("flags before any command are chat's, plus --version", () => {
    const rootFlags = root.flags.flatMap((f) => f.spellings);
    expect(rootFlags).toEqual([...node("chat").flags.flatMap((f) => f.spellings), "-V", "--version"]);
  });

  test("a new flag completes without anything else: its spellings, description and value kind come from its definition", async () => {
    const command = {
      meta: { name: "brand-new", description: "A command added later" },
      args: {
        target: { type: "string", alias: "t", valueHint: "provider/model", description: "Model to try" },
        depth: { type: "string", valueHint: "level", description: "How deep: shallow | deep" },
        colour: { type: "boolean", default: true, negativeDescription: "No colour" },
      },
    } satisfies CommandDef;
    const added = await commandNode(command, ["brand-new"]);
    expect(added.flags).toEqual([
      {
        spellings: ["-t", "--target"],
        description: "Model to try",
        value: { kind: "dynamic", name: "models" },
      },
      {
        spellings: ["--depth"],
        description: "How deep: shallow | deep",
        value: { kind: "choice", values: ["shallow", "deep"] },
      },
      { spellings: ["--no-colour"], description: "No colour", value: undefined },
      { spellings: ["-h", "--help"], description: "Show this command's help", value: undefined },
    ]);
    const tree = { ...root, subcommands: [...root.subcommands, added] };
    const bash = bashScript(tree);
    expect(bashArms(bash, "__ion_flags").get("brand-new")).toEqual([
      "-t",
      "--target",
      "--depth",
      "--no-colour",
      "-h",
      "--help",
    ]);
    expect(bashArms(bash, "__ion_flag_value").get("brand-new|-t")).toEqual(["words:models"]);
    expect(bashArms(bash, "__ion_flag_value").get("brand-new|--depth")).toEqual(["choice:shallow", "deep"]);
    expect(zshScript(tree).includes("'--target:Model to try'")).toBe(true);
    expect(fishScript(tree).includes("'brand-new|-t'")).toBe(true);
  });

  test("what values complete to: models, sessions, choices, directories, files", () => {
    expect(flag(node("run"), "-m")?.value).toEqual({ kind: "dynamic", name: "models" });
    expect(flag(node("run"), "--fallback-model")?.value).toEqual({ kind: "dynamic", name: "models" });
    expect(flag(node("chat"), "-r")?.value).toEqual({ kind: "dynamic", name: "sessions" });
    expect(flag(node("run"), "--skill")?.value).toEqual({ kind: "dynamic", name: "skills" });
    expect(flag(node("run"), "--thinking")?.value).toEqual({
      kind: "choice",
      values: ["off", "low", "medium", "high"],
    });
    expect(flag(node("run"), "-o")?.value).toEqual({
      kind: "choice",
      values: ["text", "json", "stream-json"],
    });
    expect(flag(node("run"), "--permission-mode")?.value).toEqual({
      kind: "choice",
      values: ["read", "ask", "auto", "plan", "default", "acceptEdits", "bypassPermissions"],
    });
    expect(flag(node("memory", "list"), "--type")?.value).toEqual({
      kind: "choice",
      values: ["episodic", "semantic", "procedural"],
    });
    expect(flag(node("run"), "--cwd")?.value).toEqual({ kind: "dir" });
    expect(flag(node("run"), "-f")?.value).toEqual({ kind: "file" });
    expect(flag(node("run"), "--max-turns")?.value).toEqual({ kind: "none" });
    expect(flag(node("run"), "--yes")?.value).toBeUndefined();
    expect(node("sessions", "show").positional).toEqual({ kind: "dynamic", name: "sessions" });
    expect(node("sessions", "export").positional).toEqual({ kind: "dynamic", name: "sessions" });
    expect(node("skills", "show").positional).toEqual({ kind: "dynamic", name: "skills" });
    expect(node("agents", "show").positional).toEqual({ kind: "dynamic", name: "agents" });
    expect(node("mcp", "tools").positional).toEqual({ kind: "dynamic", name: "mcp-servers" });
    expect(node("config", "set").positional).toEqual({ kind: "dynamic", name: "config-keys" });
    expect(node("completion").positional).toEqual({ kind: "choice", values: ["bash", "zsh", "fish"] });
    expect(node("run").positional).toEqual({ kind: "none" });
  });

  test("hidden subcommands are left out, as --help leaves them out", () => {
    expect(node("index").subcommands.map((s) => s.path.at(-1))).not.toContain("build");
  });
});
