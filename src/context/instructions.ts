import { dirname, isAbsolute, join, resolve } from "node:path";
import { tokensOfChars } from "../agent/tokens.ts";
import { configDir, type Env, homeDirIfKnown } from "../config/paths.ts";
import { type IgnoredRepository, locateRepository } from "../util/git.ts";
import type { Diagnostic, Loaded } from "./diagnostics.ts";
import { type FileSystem, TextFileCache } from "./file-cache.ts";

/**
 * Instruction files (SPEC §9): the layers the system prompt quotes, in this order —
 *   1. `<config>/AGENTS.md`                                   ion-specific
 *   2. `$XDG_CONFIG_HOME/agents/AGENTS.md` (`~/.config/agents/AGENTS.md`)   shared by agents
 *   3. the project: `AGENTS.md`, else `CLAUDE.md`, in each directory from the git root down to cwd
 *      (cwd alone outside a repository)
 * so the file closest to the work comes last, nearest the conversation.
 *
 *   instructionSlots({cwd, env}) → InstructionSlot[]       where layers may be, in order
 *   new InstructionLoader(fs?)                              the session keeps one for its lifetime
 *   loader.load({cwd, env}) → Loaded<InstructionFile>       re-reads only files whose mtime changed
 *   loadInstructions({cwd, env}, loader?)                   the same with a process-wide loader
 */

export type InstructionScope = "ion" | "global" | "project";

export interface InstructionFile {
  path: string;
  scope: InstructionScope;
  /** The text as it goes into the prompt (cut, with a note, when over the limit). */
  text: string;
  tokens: number;
  truncated: boolean;
}

/** One place a layer can come from: the first of `candidates` that exists is used. */
export interface InstructionSlot {
  scope: InstructionScope;
  candidates: string[];
  /** For project layers: the project's root, which their files must resolve inside. */
  projectRoot?: string;
}

export interface InstructionOptions {
  cwd: string;
  env?: Env;
}

/** A layer bigger than this is cut: one runaway file must not crowd the conversation out of the window. */
export const MAX_LAYER_TOKENS = 10_000;
const MAX_LAYER_CHARS = MAX_LAYER_TOKENS * 4; // tokens are estimated as chars/4 (agent/tokens.ts)

/** `$XDG_CONFIG_HOME/agents` (absolute values only, as XDG says) › `~/.config/agents`. */
export function agentsConfigDir(env: Env = process.env): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "agents");
  const home = homeDirIfKnown(env);
  return home === undefined ? undefined : join(home, ".config", "agents");
}

/** The cross-agent global AGENTS.md, unless there is no home directory to find it in. */
function globalCandidates(env: Env): string[] {
  const dir = agentsConfigDir(env);
  return dir === undefined ? [] : [join(dir, "AGENTS.md")];
}

/** Where the layers may be, in prompt order. */
export function instructionSlots(options: InstructionOptions): InstructionSlot[] {
  return locateSlots(options).slots;
}

function locateSlots(options: InstructionOptions): {
  slots: InstructionSlot[];
  ignored: IgnoredRepository | undefined;
} {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd);
  const slots: InstructionSlot[] = [
    { scope: "ion", candidates: [join(configDir(env), "AGENTS.md")] },
    { scope: "global", candidates: globalCandidates(env) },
  ];
  const { repo, ignored } = locateRepository(cwd);
  const projectRoot = repo?.root ?? cwd;
  for (const dir of projectDirs(cwd, repo?.root)) {
    slots.push({
      scope: "project",
      candidates: [join(dir, "AGENTS.md"), join(dir, "CLAUDE.md")],
      projectRoot,
    });
  }
  return { slots, ignored };
}

/** The git root, then each directory below it down to cwd; just cwd outside a repository. */
function projectDirs(cwd: string, root: string | undefined): string[] {
  if (root === undefined) return [cwd];
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dirname(dir) === dir) return dirs;
  }
}

/** Said when the walk up refused another account's repository, as git's safe.directory does. */
function ignoredRepositoryDiagnostic(ignored: IgnoredRepository): Diagnostic {
  return {
    path: ignored.root,
    severity: "warning",
    message:
      `not used as this project's repository: ${ignored.foreignDir} is owned by another user (uid ${ignored.uid}), ` +
      "so its AGENTS.md and .gitignore files are not read",
  };
}

export class InstructionLoader {
  readonly #files: TextFileCache;

  constructor(fs?: FileSystem) {
    this.#files = new TextFileCache(fs);
  }

  load(options: InstructionOptions): Loaded<InstructionFile> {
    const items: InstructionFile[] = [];
    const diagnostics: Diagnostic[] = [];
    // One file reached twice (the global file symlinked into a project, a dotfiles repo) is quoted once.
    const seen = new Set<string>();
    const { slots, ignored } = locateSlots(options);
    if (ignored) diagnostics.push(ignoredRepositoryDiagnostic(ignored));
    for (const slot of slots) {
      for (const path of slot.candidates) {
        const file = this.#files.read(path, slot.projectRoot);
        if (file.kind === "missing") continue; // AGENTS.md absent: try CLAUDE.md
        if (file.kind === "error") {
          diagnostics.push({ path, severity: "warning", message: `${file.reason}; skipped` });
        } else if (!seen.has(file.id)) {
          seen.add(file.id);
          items.push(layer(path, slot.scope, file.text, diagnostics));
        }
        break; // an AGENTS.md that exists wins over CLAUDE.md, even when it could not be used
      }
    }
    return { items, diagnostics };
  }
}

function layer(
  path: string,
  scope: InstructionScope,
  raw: string,
  diagnostics: Diagnostic[],
): InstructionFile {
  const whole = raw.trim();
  if (whole.length <= MAX_LAYER_CHARS) {
    return { path, scope, text: whole, tokens: tokensOfChars(whole.length), truncated: false };
  }
  let cut = whole.slice(0, MAX_LAYER_CHARS);
  // Never end on half a surrogate pair: the prompt must stay valid UTF-16/UTF-8.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const total = tokensOfChars(whole.length);
  diagnostics.push({
    path,
    severity: "warning",
    message: `about ${total} tokens, over the limit of ${MAX_LAYER_TOKENS}; only the first ${MAX_LAYER_TOKENS} are used`,
  });
  const text = `${cut}\n[… ${path} is cut here: it is over ${MAX_LAYER_TOKENS} tokens]`;
  return { path, scope, text, tokens: tokensOfChars(text.length), truncated: true };
}

let shared: InstructionLoader | undefined;

/** The layers for `cwd`, through a process-wide loader (so through one cache) unless one is given. */
export function loadInstructions(
  options: InstructionOptions,
  loader?: InstructionLoader,
): Loaded<InstructionFile> {
  if (loader) return loader.load(options);
  shared ??= new InstructionLoader();
  return shared.load(options);
}
