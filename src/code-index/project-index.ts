import { existsSync, realpathSync } from "node:fs";
import type { Env } from "../config/paths.ts";
import { CodeIndex, indexDbPath, type UpdateOptions, type UpdateSummary } from "./store.ts";

/**
 * One open index per project (and data directory) in a process, shared by the `symbols` tool's calls,
 * the chat's map and `/index`; its updates run one after another, so two calls in one step (the
 * model's, a subagent's) never update at once — the second finds the first's work done and checks
 * the files again, which costs a stat each.
 *
 *   const project = openProject(root, env);
 *   await project.refresh();             // every changed file re-parsed, deleted ones dropped
 *   project.index.definitions("main", { limit: 10 });
 */

export interface OpenedProject {
  readonly index: CodeIndex;
  /** What opening or updating had to say (a damaged database moved aside); taken by whoever reports them. */
  readonly warnings: string[];
  /** The database was created by this process and no update has finished yet: the next one builds it. */
  readonly unbuilt: boolean;
  refresh(options?: RefreshOptions): Promise<UpdateSummary>;
  /** Closes the database; the next `openProject` opens it again. */
  close(): void;
}

export type RefreshOptions = Pick<UpdateOptions, "signal" | "onProgress">;

const opened = new Map<string, OpenedProject>();

/** The index of the project at `dir` (its real path), created when missing. */
export function openProject(dir: string, env: Env): OpenedProject {
  const root = realpathSync(dir);
  const path = indexDbPath(env, root);
  let project = opened.get(path);
  if (!project) {
    const warnings: string[] = [];
    let unbuilt = !existsSync(path);
    const index = CodeIndex.open(path, root, { warn: (text: string) => warnings.push(text) });
    let queue: Promise<unknown> = Promise.resolve();
    project = {
      index,
      warnings,
      get unbuilt() {
        return unbuilt;
      },
      refresh(options = {}) {
        const run = queue.then(async () => {
          const summary = await index.update(options);
          unbuilt = false;
          return summary;
        });
        // The next update waits for this one to end, however it ended; its caller gets the failure.
        queue = run.then(
          () => undefined,
          () => undefined,
        );
        return run;
      },
      close() {
        opened.delete(path);
        index.close();
      },
    };
    opened.set(path, project);
  }
  return project;
}

/** The index of the project at `dir` when one was built, else undefined (nothing is created). */
export function existingIndex(dir: string, env: Env): OpenedProject | undefined {
  const root = realpathSync(dir);
  return existsSync(indexDbPath(env, root)) ? openProject(root, env) : undefined;
}
