import { defineCommand } from "citty";
import type { Skill } from "../skills/types.ts";
import {
  clipLine,
  fileListingOutput,
  guardSubcommand,
  parseStrict,
  projectFileArgs,
  reportDiagnostics,
  tildePath,
} from "./_shared.ts";

/**
 * `ion skills [list] [--json]`, `ion skills show NAME`, `ion skills path` (SPEC §9). The top level
 * holds flag definitions only; the loader, table and fuzzy matching load inside `run()`. Output goes
 * through fd writers, not process.stdout/stderr (util/fd-writer.ts: ~3 ms of start-up).
 */

const { cwdArgs, listArgs, showArgs } = projectFileArgs("skills", "skill");

/** One element of `ion skills --json`. */
export interface SkillListItem {
  name: string;
  description: string;
  source: Skill["source"];
  /** The skill's file; `builtin:<name>` for one embedded in ion. */
  path: string;
  requires: string[];
  available: boolean;
  /** Why it is unavailable; null when available. */
  reason: string | null;
}

async function load(cwd: string | undefined) {
  const { loadSkills } = await import("../skills/load.ts");
  const loaded = loadSkills({ cwd: cwd ?? process.cwd() });
  return loaded;
}

const list = defineCommand({
  meta: { name: "list", description: "Skills with their description, source and availability (the default)" },
  args: listArgs,
  async run({ rawArgs }) {
    const args = parseStrict("skills list", rawArgs, listArgs, 0);
    const { stdout, stderr, terminal, safe } = await fileListingOutput();
    const { items, diagnostics } = await load(args.cwd);
    if (args.json === true) {
      const json: SkillListItem[] = items.map((skill) => ({
        name: skill.name,
        description: skill.description,
        source: skill.source,
        path: skill.path,
        requires: skill.requires,
        available: skill.available,
        reason: skill.unavailable ?? null,
      }));
      stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      const { renderTable } = await import("../ui/table.ts");
      const columns = ["NAME", "DESCRIPTION", "SOURCE", "AVAILABLE"].map((header) => ({ header }));
      const rows = items.map((skill) => [
        skill.name,
        clipLine(safe(skill.description), 80),
        skill.source === "builtin" ? "built-in" : tildePath(skill.path),
        skill.available ? "yes" : `no: ${skill.unavailable}`,
      ]);
      stdout.write(renderTable(columns, rows, { width: terminal().width }));
    }
    reportDiagnostics(stderr, diagnostics, safe);
  },
});

const show = defineCommand({
  meta: { name: "show", description: "Print a skill's instructions" },
  args: showArgs,
  async run({ rawArgs }) {
    const args = parseStrict("skills show", rawArgs, showArgs, 1);
    const { stdout, stderr, safe } = await fileListingOutput();
    const { IonError } = await import("../errors.ts");
    if (typeof args.name !== "string" || args.name === "")
      throw new IonError("usage", "ion skills show needs a skill name", { hint: "`ion skills` lists them" });
    const { items, diagnostics } = await load(args.cwd);
    const { resolveSkill } = await import("../skills/resolve.ts");
    const skill = resolveSkill(items, args.name);
    stdout.write(`${safe(skill.body)}\n`);
    if (!skill.available)
      stderr.write(`ion: note: ${safe(`${skill.name} is unavailable: ${skill.unavailable}`)}\n`);
    // Only this skill's problems: the others are `ion skills`' business.
    reportDiagnostics(
      stderr,
      diagnostics.filter((d) => d.path === skill.path),
      safe,
    );
  },
});

const path = defineCommand({
  meta: { name: "path", description: "The directories searched for skills, highest precedence first" },
  args: cwdArgs,
  async run({ rawArgs }) {
    const args = parseStrict("skills path", rawArgs, cwdArgs, 0);
    const { stdout } = await fileListingOutput();
    const { skillDirs } = await import("../skills/load.ts");
    const dirs = skillDirs({ cwd: args.cwd ?? process.cwd() });
    stdout.write(`${dirs.map((dir) => `${dir.path}\n`).join("")}`);
  },
});

const SUBCOMMANDS = { list, show, path };

export default defineCommand({
  meta: { name: "skills", description: "List skills, show one, or print where they are looked for" },
  // Declared here too so that `ion skills --json` reaches the default subcommand.
  args: listArgs,
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    // The value of `--cwd DIR` is not a subcommand's name (citty skips it the same way).
    guardSubcommand(
      "skills",
      rawArgs.filter((_, i) => rawArgs[i - 1] !== "--cwd"),
      SUBCOMMANDS,
    );
  },
});
