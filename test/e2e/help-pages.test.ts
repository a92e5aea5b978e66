/**
 * End to end: every `--help` page is a promise. Each flag it prints has a description, and ion accepts
 * it spelled exactly as printed (no "unknown option", exit 64). `ion help` and `ion version` are the
 * `--help` and `--version` spelled as words.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { type IonRun, Sandbox } from "../support/cli.ts";

setDefaultTimeout(120_000);

/** Nothing here may reach the network: the catalogue and every provider point at a closed port. */
const OFFLINE = {
  ION_MODELS_URL: "http://127.0.0.1:9/api.json",
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
  ION_MODEL: "openai/gpt-4o-mini",
};

interface Flag {
  /** The page it was printed on, e.g. `sessions list`. */
  page: string;
  spelling: string;
  takesValue: boolean;
  description: string;
}

/** The rows of one section (`OPTIONS`, `COMMANDS`) of a help page: [left column, description]. */
function section(page: string, name: string): [string, string][] {
  const lines = page.split("\n");
  const start = lines.indexOf(name);
  if (start < 0) return [];
  const rows: [string, string][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("  ")) break;
    const match = /^ {2}(\S(?:.*?\S)?)(?: {2,}(.*))?$/.exec(line);
    if (match) rows.push([match[1]!, match[2] ?? ""]);
  }
  return rows;
}

/** `-m, --model PROVIDER/MODEL` → each spelling, and whether a value follows. */
function flagsOf(page: string, name: string): Flag[] {
  return section(page, "OPTIONS").flatMap(([left, description]) => {
    const spellings = left.split(", ");
    const last = spellings.at(-1)!.split(" ");
    spellings[spellings.length - 1] = last[0]!;
    return spellings.map((spelling) => ({ page: name, spelling, takesValue: last.length > 1, description }));
  });
}

async function help(box: Sandbox, words: string[]): Promise<string> {
  const run = await box.run([...words, "--help"], { env: OFFLINE });
  expect(run.code).toBe(0);
  return run.stdout;
}

/** Every page: the root's, each command's and each subcommand's. */
async function allPages(box: Sandbox): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  const root = await help(box, []);
  for (const [command] of section(root, "COMMANDS")) {
    const page = await help(box, [command]);
    pages.set(command, page);
    for (const [sub] of section(page, "COMMANDS"))
      pages.set(`${command} ${sub}`, await help(box, [command, sub]));
  }
  return pages;
}

describe("help pages", () => {
  test("every flag printed has a description and is accepted exactly as printed", async () => {
    using box = new Sandbox();
    const pages = await allPages(box);
    expect([...pages.keys()]).toEqual(expect.arrayContaining(["run", "chat", "sessions list", "config set"]));
    const flags = [...pages].flatMap(([name, page]) => flagsOf(page, name));
    expect(flags.length).toBeGreaterThan(40);
    expect(flags.filter((f) => f.description.trim() === "").map((f) => `${f.page} ${f.spelling}`)).toEqual(
      [],
    );
    expect(flags.filter((f) => !/^(-[a-zA-Z]|--[a-z][a-z-]*)$/.test(f.spelling))).toEqual([]);

    const refused: string[] = [];
    // A few at a time: each is a whole ion start, on a small machine.
    for (let i = 0; i < flags.length; i += 4) {
      const batch = flags.slice(i, i + 4);
      const runs = await Promise.all(
        batch.map((flag) =>
          box.run([...flag.page.split(" "), flag.spelling, ...(flag.takesValue ? ["x"] : [])], {
            env: OFFLINE,
            stdin: "",
          }),
        ),
      );
      for (const [j, run] of runs.entries()) {
        if (isUnknownOption(run))
          refused.push(`ion ${batch[j]!.page} ${batch[j]!.spelling}: ${run.stderr.trim()}`);
      }
    }
    expect(refused).toEqual([]);
  });

  test("run's Claude Code flags are printed with two dashes and --tools/--session by their --no- form", async () => {
    using box = new Sandbox();
    const page = await help(box, ["run"]);
    for (const flag of ["--dangerously-skip-permissions", "--system-prompt", "--include-partial-messages"]) {
      expect(page).toContain(flag);
      expect(page).not.toMatch(new RegExp(`(^|[ ,])-${flag.slice(2)}`, "m"));
    }
    expect(page).toMatch(/^ {2}--no-tools +Send no tools to the model$/m);
    expect(page).toMatch(/^ {2}--no-session +Save nothing: no session file$/m);
    expect(page).not.toContain("(Default: true)");
  });

  test("ion help and ion version work as --help and --version do", async () => {
    using box = new Sandbox();
    const [helpWord, helpFlag, version, versionFlag, helpRun, runHelp] = await Promise.all([
      box.run(["help"]),
      box.run(["--help"]),
      box.run(["version"]),
      box.run(["--version"]),
      box.run(["help", "run"]),
      box.run(["run", "--help"]),
    ]);
    expect(helpWord).toEqual(helpFlag);
    expect(helpWord.code).toBe(0);
    expect(version).toEqual(versionFlag);
    expect(version.stdout).toMatch(/^ion \d+\.\d+\.\d+/);
    // `-v` alone is the version, as Claude Code has it: the Python Agent SDK checks its engine with it.
    expect(await box.run(["-v"])).toEqual(versionFlag);
    expect(helpRun).toEqual(runHelp);
    expect(helpRun.stdout).toContain("USAGE ion run");
    const nosuch = await box.run(["help", "nosuch"]);
    expect(nosuch.code).toBe(64);
    expect(nosuch.stderr).toContain('unknown command "nosuch"');
  });
});

function isUnknownOption(run: IonRun): boolean {
  return run.code === 64 && run.stderr.includes("unknown option");
}
