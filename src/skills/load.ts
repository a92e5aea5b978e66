import { type Dirent, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { configDir, type Env, homeDirIfKnown } from "../config/paths.ts";
import type { Diagnostic, Loaded } from "../context/diagnostics.ts";
import { ioReason, listDir } from "../context/diagnostics.ts";
import { findGitRoot } from "../util/git.ts";
import { readProjectFile } from "../util/project-file.ts";
import { parsedBuiltinSkills } from "./builtin.ts" with { type: "macro" };
import { parseSkill, type SkillDraft, type SkillOrigin } from "./parse.ts";
import type { Skill, SkillSource } from "./types.ts";

/**
 * Finding and loading skills (SPEC §9). Directories, highest precedence first:
 *   ./.ion/skills   ./.agents/skills          project (relative to the workspace cwd)
 *   <config>/skills ~/.agents/skills          user (ion's own before the cross-agent one)
 *   built-in                                   embedded in ion
 * The first skill of a name wins. In each directory, `<name>/SKILL.md` and `<name>.md` are skills;
 * a bad file is a diagnostic, never a failure, and a lower-precedence skill of its name still loads.
 *
 *   skillDirs({cwd, env}) → SkillDir[]                         the directories, highest first
 *   loadSkills({cwd, env, which?}) → Loaded<Skill>             winners sorted by name, with diagnostics
 *   availableSkillNames(skills) → string[]                     for stream-json's `init.skills`
 *   findSkill(skills, name) → Skill | undefined
 */

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The built-in skills, parsed when ion is built (see builtin.ts). */
const BUILTIN = parsedBuiltinSkills();

export interface SkillDir {
  path: string;
  source: Exclude<SkillSource, "builtin">;
  /** For the project's directories: the project root its skill files must resolve inside. */
  projectRoot?: string;
}

export interface SkillOptions {
  cwd: string;
  env?: Env;
  /** Finds a program on PATH; default `Bun.which` with the environment's PATH. */
  which?: (program: string) => string | null;
}

export function skillDirs(options: SkillOptions): SkillDir[] {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd);
  const home = homeDirIfKnown(env);
  const projectRoot = findGitRoot(cwd)?.root ?? cwd;
  const dirs: SkillDir[] = [
    { path: join(cwd, ".ion", "skills"), source: "project", projectRoot },
    { path: join(cwd, ".agents", "skills"), source: "project", projectRoot },
    { path: join(configDir(env), "skills"), source: "user" },
    // Without a home directory (no HOME, no passwd entry) there is no ~/.agents/skills to read.
    ...(home === undefined ? [] : [{ path: join(home, ".agents", "skills"), source: "user" as const }]),
  ];
  // In the home directory ./.agents/skills is ~/.agents/skills: list (and load) it once, in the
  // project's place but as the user's own directory (its links are the user's choice).
  const unique: SkillDir[] = [];
  for (const dir of dirs) {
    const seen = unique.findIndex((other) => other.path === dir.path);
    if (seen === -1) unique.push(dir);
    else if (dir.source === "user") unique[seen] = dir;
  }
  return unique;
}

export function loadSkills(options: SkillOptions): Loaded<Skill> {
  const env = options.env ?? process.env;
  const which = options.which ?? ((program: string) => Bun.which(program, { PATH: env.PATH ?? "" }));
  const diagnostics: Diagnostic[] = [];
  const winners = new Map<string, SkillDraft>();
  const offer = (draft: SkillDraft | undefined) => {
    if (draft && !winners.has(draft.name)) winners.set(draft.name, draft);
  };

  for (const dir of skillDirs(options)) {
    for (const draft of loadDir(dir, diagnostics)) offer(draft);
  }
  for (const parsed of BUILTIN) {
    diagnostics.push(...parsed.diagnostics);
    offer(parsed.skill);
  }

  const items = [...winners.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((draft) => withAvailability(draft, which));
  return { items, diagnostics };
}

function withAvailability(draft: SkillDraft, which: (program: string) => string | null): Skill {
  const missing = draft.requires.filter((program) => !which(program));
  if (missing.length === 0) return { ...draft, available: true };
  return { ...draft, available: false, unavailable: `needs ${missing.join(", ")} (not on PATH)` };
}

/** The skills of one directory, in name order; a folder beats a same-named `.md` file beside it. */
function loadDir(dir: SkillDir, diagnostics: Diagnostic[]): SkillDraft[] {
  const folders: SkillDraft[] = [];
  const files: SkillDraft[] = [];
  for (const entry of listDir(dir.path, diagnostics)) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir.path, entry.name);
    const kind = entryKind(entry, path, diagnostics);
    if (kind === "dir") {
      const skillPath = join(path, "SKILL.md");
      const origin: SkillOrigin = {
        path: skillPath,
        source: dir.source,
        kind: "folder",
        name: entry.name,
        dir: path,
      };
      const draft = loadFile(origin, diagnostics, true, dir.projectRoot);
      if (draft) folders.push(draft);
    } else if (kind === "file" && entry.name.endsWith(".md")) {
      const origin: SkillOrigin = {
        path,
        source: dir.source,
        kind: "file",
        name: basename(entry.name, ".md"),
      };
      const draft = loadFile(origin, diagnostics, false, dir.projectRoot);
      if (draft) files.push(draft);
    }
  }
  const names = new Set(folders.map((skill) => skill.name));
  for (const file of files) {
    if (!names.has(file.name)) continue;
    diagnostics.push({
      path: file.path,
      severity: "warning",
      message: `ignored: the folder skill "${file.name}" beside it has the same name`,
    });
  }
  return [...folders, ...files.filter((file) => !names.has(file.name))];
}

/** Symlinks are followed: a skill directory is often a link into a shared checkout. */
function entryKind(entry: Dirent, path: string, diagnostics: Diagnostic[]): "dir" | "file" | "other" {
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  if (!entry.isSymbolicLink()) return "other";
  try {
    const target = statSync(path);
    if (target.isDirectory()) return "dir";
    return target.isFile() ? "file" : "other";
  } catch (err) {
    diagnostics.push({ path, severity: "warning", message: `cannot follow the link (${ioReason(err)})` });
    return "other";
  }
}

function loadFile(
  origin: SkillOrigin,
  diagnostics: Diagnostic[],
  folder: boolean,
  projectRoot: string | undefined,
): SkillDraft | undefined {
  const bytes = projectRoot
    ? readFromProject(origin.path, projectRoot, diagnostics, folder)
    : readFromUser(origin.path, diagnostics, folder);
  if (bytes === undefined) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    // The decoder's only failure is invalid UTF-8.
    diagnostics.push({ path: origin.path, severity: "error", message: "not UTF-8 text" });
    return undefined;
  }
  const parsed = parseSkill(text, origin);
  diagnostics.push(...parsed.diagnostics);
  return parsed.skill;
}

/** A user's skill file: symlinks anywhere are the user's own choice. */
function readFromUser(path: string, diagnostics: Diagnostic[], folder: boolean): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = err instanceof Error && "code" in err ? err.code : undefined;
    // A folder without SKILL.md is not a skill (it may hold the user's own material): not a problem.
    if (folder && code === "ENOENT") return undefined;
    diagnostics.push({ path, severity: "error", message: `cannot read it (${ioReason(err)})` });
    return undefined;
  }
}

/** A project's skill file goes through the project-file rules: a link out of the project is refused. */
function readFromProject(
  path: string,
  root: string,
  diagnostics: Diagnostic[],
  folder: boolean,
): Uint8Array | undefined {
  const file = readProjectFile(path, root);
  if (file.kind === "bytes") return file.bytes;
  if (file.kind === "refused")
    diagnostics.push({ path, severity: "error", message: `${file.reason}; skipped`, refused: true });
  else if (!folder) diagnostics.push({ path, severity: "error", message: "cannot read it (no such file)" });
  return undefined;
}

/** The names of the skills that can be used, for stream-json's `init.skills`. */
export function availableSkillNames(skills: readonly Skill[]): string[] {
  return skills.filter((skill) => skill.available).map((skill) => skill.name);
}

export function findSkill(skills: readonly Skill[], name: string): Skill | undefined {
  return skills.find((skill) => skill.name === name);
}
