/**
 * `ion completion bash|zsh|fish` loaded into the real shells: bash (`complete -p`, then the completion
 * function called as readline would, reading COMPREPLY), fish (`complete -C`, fish's own completion
 * query) and zsh (an interactive zsh in tmux: Tab pressed, the listing read off the screen). Values
 * come from a catalogue cache warmed against the fake server, sessions made in the data dir and skill
 * files: no network while completing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "../../src/history/store.ts";
import { ionCommand, Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { writeWithDirs } from "../support/files.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

setDefaultTimeout(30_000);
afterEach(() => Terminal.closeAll());

const { server, env: serverEnv } = useOpenAIServer("test-key-123", (url) => ({
  ION_MODELS_URL: `${url}/api.json`,
}));
const HAS_ZSH = Bun.which("zsh") !== null;
const HAS_FISH = Bun.which("fish") !== null;
if (!HAS_ZSH || !HAS_FISH) console.warn("completion: zsh or fish is not installed; their tests are skipped");

/** One sandbox for the file: a warm catalogue, two sessions, a project skill, `ion` on PATH. */
const box = new Sandbox();
const ids: string[] = [];
let env: Record<string, string> = {};

beforeAll(async () => {
  await warmCatalog(server, box, serverEnv);
  const store = SessionStore.forDataDir(box.dataDir);
  for (const title of ["Fix the login bug", "Write the release notes"]) {
    const writer = await store.create({
      cwd: realpathSync(box.workspace),
      provider: "openai",
      model: "gpt-4o",
      title,
    });
    await writer.close();
    ids.push(writer.id);
  }
  writeWithDirs(
    join(box.workspace, ".ion/skills/release-notes/SKILL.md"),
    "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nGroup by type.\n",
  );
  // Completion runs `ion` as the user typed it: a wrapper named ion on PATH runs the ion under test.
  const bin = join(box.root, "bin");
  mkdirSync(bin);
  const wrapper = join(bin, "ion");
  await Bun.write(
    wrapper,
    `#!/bin/sh\nexec ${ionCommand()
      .map((a) => `'${a}'`)
      .join(" ")} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  // No provider key here: completing reads the cache, it never asks the provider.
  env = box.env({ PATH: `${bin}:${process.env.PATH}` });
});
afterAll(() => box[Symbol.dispose]());

async function script(shell: string): Promise<string> {
  const run = await box.run(["completion", shell], { env });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const file = join(box.root, `ion.${shell}`);
  await Bun.write(file, run.stdout);
  return file;
}

function spawnIn(argv: string[]): { code: number; stdout: string; stderr: string } {
  const run = Bun.spawnSync(argv, { cwd: box.workspace, env, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

describe("ion completion", () => {
  test("no shell, or an unknown one: a one-line usage error naming the three, exit 64", async () => {
    for (const args of [["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"]]) {
      const run = await box.run(args, { env });
      expect(run.code).toBe(64);
      expect(run.stdout).toBe("");
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/bash, zsh or fish/);
    }
  });

  test("the helper stays out of --help; the command is listed", async () => {
    const top = await box.run(["--help"], { env });
    expect(top.stdout).toMatch(/completion\s+Print a shell completion script/);
    const page = await box.run(["completion", "--help"], { env });
    expect(page.code).toBe(0);
    expect(page.stdout).not.toContain("--words");
  });
});

describe("bash", () => {
  /** COMPREPLY for each line of words (the last one is being completed), as bash would ask for it. */
  async function complete(lines: string[][]): Promise<string[][]> {
    const file = await script("bash");
    const calls = lines.map((words) => `c ${words.map((w) => `'${w}'`).join(" ")}`).join("\n");
    const program = `source '${file}'\ncomplete -p ion\nc() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _ion; echo "<$(IFS='|'; echo "\${COMPREPLY[*]}")>"; }\n${calls}\n`;
    const run = spawnIn(["bash", "--noprofile", "--norc", "-c", program]);
    expect(run.stderr).toBe("");
    const [registered, ...replies] = run.stdout.trimEnd().split("\n");
    expect(registered).toBe("complete -F _ion ion");
    return replies.map((line) => line.slice(1, -1).split("|").filter(Boolean));
  }

  test("commands, subcommands, flags and choices; flags before a command are chat's", async () => {
    const got = await complete([
      ["ion", "ru"],
      ["ion", "sessions", ""],
      ["ion", "run", "--thi"],
      ["ion", "run", "--thinking", ""],
      ["ion", "sessions", "show", "--"],
      ["ion", "--ne"],
      ["ion", "-y", "--thi"],
      ["ion", "completion", ""],
    ]);
    expect(got).toEqual([
      ["run"],
      ["list", "show", "search", "rm", "export"],
      ["--thinking"],
      ["off", "low", "medium", "high"],
      ["--json", "--last", "--help"],
      ["--new"],
      ["--thinking"],
      ["bash", "zsh", "fish"],
    ]);
  });

  test("-m and --fallback-model: model ids from the catalogue cache; sessions and skills by name", async () => {
    const got = await complete([
      ["ion", "run", "-m", ""],
      ["ion", "-m", "openai/gpt-4o-"],
      ["ion", "run", "--fallback-model", "openai/gpt-4o-m"],
      ["ion", "run", "--model", "=", "openai/gpt-4o-"],
      ["ion", "sessions", "show", ""],
      ["ion", "-r", ids[0]!.slice(0, 30)],
      ["ion", "skills", "show", "rel"],
      ["ion", "run", "--skill", "dev"],
    ]);
    expect(got[0]).toEqual(["openai/gpt-4o", "openai/gpt-4o-mini"]);
    expect(got[1]).toEqual(["openai/gpt-4o-mini"]);
    expect(got[2]).toEqual(["openai/gpt-4o-mini"]);
    expect(got[3]).toEqual(["openai/gpt-4o-mini"]);
    expect(got[4]).toEqual([ids[1]!, ids[0]!]);
    expect(got[5]).toEqual([ids[0]!]);
    expect(got[6]).toEqual(["release-notes"]);
    expect(got[7]).toEqual(["developer"]);
  });
});

describe.skipIf(!HAS_FISH)("fish", () => {
  /** `complete -C LINE`: what fish offers, as `word<TAB>description` lines. */
  async function complete(lines: string[]): Promise<string[][]> {
    const file = await script("fish");
    const calls = lines.map((line) => `complete -C '${line}'; echo '<end>'`).join("\n");
    const run = spawnIn(["fish", "--no-config", "-c", `source '${file}'\n${calls}`]);
    expect(run.stderr).toBe("");
    return run.stdout
      .split("<end>\n")
      .slice(0, lines.length)
      .map((block) => block.split("\n").filter(Boolean));
  }

  test("commands with descriptions, flags, values", async () => {
    const [commands, sessions, flags, thinking, equals] = await complete([
      "ion ru",
      "ion sessions ",
      "ion sessions show --",
      "ion run --thinking ",
      "ion run --thinking=m",
    ]);
    expect(commands).toEqual(["run\tRun one agent job and print its answer (for scripts and pipes)"]);
    expect(sessions!.map((l) => l.split("\t")[0]).sort()).toEqual(["export", "list", "rm", "search", "show"]);
    expect(flags!.map((l) => l.split("\t")[0]).sort()).toEqual(["--help", "--json", "--last"]);
    expect(thinking!.sort()).toEqual(["high", "low", "medium", "off"]);
    expect(equals).toEqual(["--thinking=medium"]);
  });

  test("model ids, session ids with their titles, skill names", async () => {
    const [models, sessions, resume, skills] = await complete([
      "ion run -m openai/gpt-4o",
      "ion sessions rm ",
      `ion run -r ${ids[1]!.slice(0, 30)}`,
      "ion skills show rel",
    ]);
    expect(models!.map((l) => l.split("\t")[0])).toEqual(["openai/gpt-4o", "openai/gpt-4o-mini"]);
    expect(sessions!.sort()).toEqual(
      [`${ids[0]}\tFix the login bug`, `${ids[1]}\tWrite the release notes`].sort(),
    );
    expect(resume).toEqual([`${ids[1]}\tWrite the release notes`]);
    expect(skills).toEqual(["release-notes\tWrite release notes from the git log."]);
  });
});

describe.skipIf(!HAS_ZSH || !HAS_TMUX)("zsh", () => {
  /**
   * An interactive zsh at its `% ` prompt, with ion's completion installed as the README says: a
   * `_ion` file in $fpath before compinit, or `source <(ion completion zsh)` after it.
   */
  async function zsh(install: "fpath" | "source"): Promise<Terminal> {
    const dir = join(box.root, `zdot-${install}`);
    mkdirSync(dir, { recursive: true });
    const file = await script("zsh");
    await Bun.write(join(dir, "_ion"), await Bun.file(file).text());
    const compinit = `autoload -Uz compinit\ncompinit -u -d '${dir}/.zcompdump'\n`;
    const rc =
      install === "fpath"
        ? `fpath=('${dir}' $fpath)\n${compinit}`
        : `${compinit}source <(ion completion zsh)\n`;
    await Bun.write(join(dir, ".zshrc"), `${rc}PS1='%% '\n`);
    const term = await Terminal.start({
      command: ["zsh", "-i"],
      env: { ...env, ZDOTDIR: dir, TERM: "xterm-256color" },
      cwd: box.workspace,
      cols: 160,
      rows: 40,
    });
    await term.waitFor((screen) => screen.trimEnd().endsWith("%"), 10_000);
    return term;
  }

  /** Types `line`, presses Tab, waits for `expected`; then clears the line. */
  async function tab(term: Terminal, line: string, expected: RegExp): Promise<string> {
    await term.sendText(line);
    await term.sendKeys("Tab");
    const screen = await term.waitFor(expected, 10_000);
    await term.sendKeys("C-c");
    await term.waitFor((s) => s.trimEnd().endsWith("%"), 5000);
    await term.sendKeys("C-l");
    return screen;
  }

  test("Tab lists subcommands and flags with descriptions, completes model ids and shows session titles", async () => {
    using term = await zsh("fpath");
    const commands = await tab(term, "ion sessions ", /rm\s+-- Delete one session/);
    expect(commands).toMatch(/export\s+-- A session as Markdown/);
    await tab(term, "ion run --thi", /% ion run --thinking $/m);
    await tab(term, "ion run -m openai/gpt-4o-", /% ion run -m openai\/gpt-4o-mini $/m);
    // Both ids share their first characters: Tab lists them once those are typed.
    let shared = 0;
    while (ids[0]![shared] === ids[1]![shared]) shared++;
    const sessions = await tab(
      term,
      `ion sessions show ${ids[0]!.slice(0, shared)}`,
      /Write the release notes/,
    );
    expect(sessions).toContain(`${ids[0]}  -- Fix the login bug`);
    await tab(term, "ion skills show rel", /% ion skills show release-notes $/m);
  });

  test("sourced after compinit, it completes the same", async () => {
    using term = await zsh("source");
    await tab(term, "ion sessions ", /rm\s+-- Delete one session/);
    await tab(term, "ion -m openai/gpt-4o-", /% ion -m openai\/gpt-4o-mini $/m);
  });
});
