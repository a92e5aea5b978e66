import Fuse from "fuse.js";
import { walkFiles } from "../tools/walk.ts";
import { resolveInWorkspace, type WorkspaceScope } from "../tools/workspace.ts";
import { mentionAtEnd, mentionText } from "./mention-parse.ts";

/**
 * Tab after `@` in the chat: the workspace's files, as the file tools' walker lists them (.gitignore
 * honoured, `.git` skipped). A typed prefix of paths completes like a shell (the common part, then
 * the list on a second Tab); anything else is matched fuzzily (fuse.js), `@srcmai` → `@src/main.ts`,
 * and Tab again puts the next best match in its place. Loaded on the first `@` Tab, with fuse.js.
 *
 * In a big repository the walk stops after MAX_ENTRIES entries or WALK_BUDGET_MS, whichever comes first:
 * Tab then completes among the files found so far, and a message can still mention any file by its path.
 */

/** The file list is reused this long: Tab pressed several times walks once, a new file shows up soon. */
const CACHE_MS = 5000;
const MAX_ENTRIES = 20_000;
const WALK_BUDGET_MS = 300;
/** The most candidates offered at once (readline lists them on a second Tab). */
const LIST_MAX = 50;
const FUZZY_MAX = 10;

export type Completion = [string[], string];

function commonPrefix(values: readonly string[]): string {
  let prefix = values[0] ?? "";
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** A path's beginning as a mention still being typed: a quote the user opened stays open. */
function openMention(start: string, quote: '"' | "'" | undefined): string {
  return quote && !start.includes(quote) ? `@${quote}${start}` : mentionText(start);
}

export class MentionCompleter {
  private files: { at: number; list: Promise<string[]> } | undefined;
  /** The fuzzy matches last offered, so Tab on an offered one moves to the next. */
  private cycle: { offered: string; matches: string[] } | undefined;
  private fuse: { list: string[]; fuse: Fuse<string> } | undefined;

  constructor(
    private readonly scope: () => WorkspaceScope,
    /** How far one walk goes (tests make it small). */
    private readonly limits = { maxEntries: MAX_ENTRIES, budgetMs: WALK_BUDGET_MS },
  ) {}

  /** readline's completer for `line`, the text before the cursor: `[candidates, the text they replace]`. */
  async complete(line: string): Promise<Completion> {
    const mention = mentionAtEnd(line);
    if (!mention) return [[], line];
    const typed = line.slice(mention.start);
    const cycled = this.next(typed);
    if (cycled) return [[cycled], typed];
    const files = await this.list();
    const prefixed = files.filter((f) => f.startsWith(mention.path));
    if (prefixed.length > 0) {
      // More than fit in a list: the part they all share still completes (its quote left open).
      const shared = commonPrefix(prefixed);
      if (prefixed.length > LIST_MAX && shared.length > mention.path.length)
        return [[openMention(shared, mention.quote)], typed];
      return [prefixed.slice(0, LIST_MAX).map((f) => mentionText(f, mention.quote)), typed];
    }
    const matches = this.fuzzy(files, mention.path).map((f) => mentionText(f, mention.quote));
    if (matches.length === 0) return [[], typed];
    this.cycle = { offered: matches[0]!, matches };
    return [[matches[0]!], typed];
  }

  /** Tab on the fuzzy match just offered: the one after it (wrapping round). */
  private next(typed: string): string | undefined {
    const cycle = this.cycle;
    if (!cycle || cycle.offered !== typed || cycle.matches.length < 2) return undefined;
    const next = cycle.matches[(cycle.matches.indexOf(typed) + 1) % cycle.matches.length]!;
    cycle.offered = next;
    return next;
  }

  private fuzzy(files: string[], query: string): string[] {
    if (query === "") return [];
    if (this.fuse?.list !== files)
      this.fuse = {
        list: files,
        fuse: new Fuse(files, { ignoreLocation: true, threshold: 0.5, includeScore: true }),
      };
    const results = this.fuse.fuse.search(query, { limit: FUZZY_MAX * 3 });
    // Equal scores: the shorter path is the likelier one (`src/main.ts` before `test/src/main.test.ts`).
    results.sort((a, b) => (a.score ?? 1) - (b.score ?? 1) || a.item.length - b.item.length);
    return results.slice(0, FUZZY_MAX).map((r) => r.item);
  }

  private list(): Promise<string[]> {
    const now = Date.now();
    if (!this.files || now - this.files.at > CACHE_MS) this.files = { at: now, list: this.walk() };
    return this.files.list;
  }

  private async walk(): Promise<string[]> {
    const scope = this.scope();
    const signal = AbortSignal.timeout(this.limits.budgetMs);
    const files: string[] = [];
    try {
      const walk = walkFiles(resolveInWorkspace(".", scope), {
        scope,
        signal,
        maxEntries: this.limits.maxEntries,
      });
      for await (const file of walk) files.push(file.rel);
    } catch (err) {
      if (!signal.aborted) throw err;
      // Out of time: complete among the files found so far (the module comment says why).
    }
    return files;
  }
}
