import { existsSync, rmSync } from "node:fs";
import { safeForTerminal } from "../util/terminal-text.ts";
import { parseStrict, tildePath } from "./_shared.ts";
import { buildArgs, statusArgs } from "./index.ts";
import { indexedRoot, progressBar, projectRootAt, summaryLine } from "./index-common.ts";

/** `ion index [PATH]`: build or update the project's index, a progress bar on a terminal, then one summary line. */
export async function buildIndex(rawArgs: string[]): Promise<void> {
  const args = parseStrict("index", rawArgs, buildArgs, 1);
  const root = projectRootAt(process.cwd(), args.path);
  const { openProject } = await import("../code-index/project-index.ts");
  const { updateWarnings } = await import("../code-index/answer-lines.ts");
  const project = openProject(root, process.env);
  const bar = progressBar(process.stderr);
  try {
    const summary = await project.refresh({ onProgress: bar.update });
    bar.done();
    for (const warning of [...project.warnings.splice(0), ...updateWarnings(summary)])
      process.stderr.write(`ion: warning: ${safeForTerminal(warning)}\n`);
    process.stdout.write(`${summaryLine(summary)}\n`);
  } finally {
    bar.done();
    project.close();
  }
}

/** `ion index status [--json]`: where this directory's index is, what it holds, when it was updated. */
export async function indexStatus(rawArgs: string[]): Promise<void> {
  const args = parseStrict("index status", rawArgs, statusArgs, 0);
  const root = indexedRoot(process.cwd());
  const { indexDbPath } = await import("../code-index/store.ts");
  const path = indexDbPath(process.env, root);
  if (!existsSync(path)) {
    if (args.json === true)
      process.stdout.write(`${JSON.stringify({ root, path, exists: false }, null, 2)}\n`);
    else process.stdout.write(`no index for ${tildePath(root)}; \`ion index\` builds one\n`);
    return;
  }
  const { openProject } = await import("../code-index/project-index.ts");
  const project = openProject(root, process.env);
  try {
    const status = project.index.status();
    for (const warning of project.warnings.splice(0)) process.stderr.write(`ion: warning: ${warning}\n`);
    if (args.json === true) {
      process.stdout.write(`${JSON.stringify({ root, path, exists: true, ...status }, null, 2)}\n`);
      return;
    }
    const { statusLines } = await import("./index-common.ts");
    process.stdout.write(`${statusLines(root, path, status).join("\n")}\n`);
  } finally {
    project.close();
  }
}

/** `ion index clear`: deletes this directory's index (its database and the database's side files). */
export async function clearIndex(rawArgs: string[]): Promise<void> {
  parseStrict("index clear", rawArgs, {}, 0);
  const root = indexedRoot(process.cwd());
  const { indexDbPath } = await import("../code-index/store.ts");
  const path = indexDbPath(process.env, root);
  if (!existsSync(path)) {
    process.stdout.write(`no index for ${tildePath(root)}: nothing to clear\n`);
    return;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
  process.stdout.write(`cleared the index of ${tildePath(root)}\n`);
}
