/**
 * Start-up benchmark (SPEC §12): times a compiled Bun hello-world (the floor, bench/floor/hello.ts,
 * built with ion's own flags in this run) against `ion --version` (target ≤ 1.1×), `ion --help` and
 * `ion run --help` (≤ 1.3×) and `ion skills` (≤ 2×; 50 skills, run in the deepest directory of a
 * 5-level AGENTS.md tree),
 * interleaved round by round so machine noise hits every case alike, and prints medians, p90,
 * the ratio to the floor and the targets. Reports only: the exit status is 0 whatever the figures.
 *
 *   bun bench/startup.ts [--bin dist/ion] [--rounds 50] [--warmup 5] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  benchOptions,
  type Case,
  median,
  peakRSS,
  prepare,
  printFailures,
  printRatioTable,
  ratioRows,
  recordSummary,
  sandboxEnv,
  timeCases,
} from "./lib.ts";

const options = benchOptions({ rounds: 50, warmup: 5 });
const { rounds, warmup } = options;

/**
 * A project as a busy user has it: a git repository with an AGENTS.md in each of 5 nested directories,
 * 25 skills in the project's `.ion/skills` and 25 in the config dir (half SKILL.md folders, half short
 * `.md` files). Returns the deepest directory.
 */
function contextFixture(sandbox: string, configDir: string): string {
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  let dir = join(sandbox, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, ".git/HEAD"), "ref: refs/heads/main\n");
  for (let level = 0; level < 5; level++) {
    if (level > 0) dir = join(dir, `level-${level}`);
    write(join(dir, "AGENTS.md"), `# Level ${level}\n\n${"- Keep functions small and tested.\n".repeat(60)}`);
  }
  for (let i = 0; i < 50; i++) {
    const name = `skill-${String(i).padStart(2, "0")}`;
    const root = i < 25 ? join(dir, ".ion/skills") : join(configDir, "skills");
    const description = `Does task ${i} the way this team likes it. Use when the user asks for task ${i}.`;
    const body = `# ${name}\n\n${"1. A step of the procedure.\n".repeat(40)}`;
    if (i % 2 === 0)
      write(join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`);
    else write(join(root, `${name}.md`), body);
  }
  return dir;
}

/** The system prompt for the fixture, built in this process: the first call, then warm calls. */
async function promptAssembly(cwd: string, env: Record<string, string>): Promise<string> {
  const { loadSkills } = await import("../src/skills/load.ts");
  const { SystemPromptBuilder } = await import("../src/context/system-prompt.ts");
  const tools = ["read_file", "list_files", "glob", "grep", "edit_file", "write_file", "bash", "skill"];
  let started = performance.now();
  const skills = loadSkills({ cwd, env }).items;
  const loadMs = performance.now() - started;
  const builder = new SystemPromptBuilder();
  const build = () => builder.build({ cwd, env, preamble: undefined, tools, skills, contextWindow: 200_000 });
  started = performance.now();
  const first = build();
  const firstMs = performance.now() - started;
  started = performance.now();
  build();
  const secondMs = performance.now() - started;
  const warm: number[] = [];
  for (let i = 0; i < 200; i++) {
    started = performance.now();
    build();
    warm.push(performance.now() - started);
  }
  return (
    `prompt assembly (5 AGENTS.md, ${skills.length} skills, ${first.text.length} chars): ` +
    `loadSkills ${loadMs.toFixed(2)} ms; build first ${firstMs.toFixed(2)} ms, second ${secondMs.toFixed(2)} ms, ` +
    `warm median ${median(warm).toFixed(3)} ms\n`
  );
}

async function main(floor: string, ion: string): Promise<void> {
  // A neutral working directory and an empty config dir: nothing the user has can change the figures.
  const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-"));
  const env = sandboxEnv(sandbox);
  const deep = contextFixture(sandbox, env.ION_CONFIG_DIR!);
  const cases: Case[] = [
    { name: "floor (hello-world)", argv: [floor], expect: (s) => s === "hello\n", times: [], rss: [] },
    {
      name: "ion --version",
      argv: [ion, "--version"],
      target: 1.1,
      expect: (s) => /^ion \d+\.\d+\.\d+\S*( \([0-9a-f]{7,}\))?\n$/.test(s),
      times: [],
      rss: [],
    },
    {
      name: "ion --help",
      argv: [ion, "--help"],
      target: 1.3,
      expect: (s) => s.includes("USAGE"),
      times: [],
      rss: [],
    },
    {
      name: "ion run --help",
      argv: [ion, "run", "--help"],
      target: 1.3,
      expect: (s) => s.includes("USAGE"),
      times: [],
      rss: [],
    },
    {
      name: "ion skills (50)",
      argv: [ion, "skills", "--cwd", deep],
      target: 2,
      expect: (s) => s.split("\n").length === 55, // header + 50 + 3 built-ins + final newline
      times: [],
      rss: [],
    },
  ];

  const failures = new Map<string, string>();
  let assembly: string;
  try {
    timeCases(cases, { cwd: sandbox, env, rounds, warmup, stderrChars: 200 }, failures);
    for (const c of cases) c.rss = peakRSS(c.argv, { cwd: sandbox, env });
    assembly = await promptAssembly(deep, env);
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }

  process.stdout.write(`start-up: ${rounds} interleaved rounds (+${warmup} warm-up), ${ion}\n\n`);
  printRatioTable(cases, { rss: true });
  printFailures(failures);
  process.stdout.write(`\n${assembly}`);
  recordSummary(ratioRows("startup", cases));
}

const prepared = await prepare("hello", options);
if (typeof prepared === "string") process.stdout.write(`startup bench: ${prepared}\n`);
else await main(prepared.floor, prepared.ion);
