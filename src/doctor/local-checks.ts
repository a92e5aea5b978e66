/** What this machine gives ion: the terminal, the data dir, the sandbox. */
import { constants, type Dirent, existsSync, statSync } from "node:fs";
import { access, lstat, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { tildePath } from "../commands/_shared.ts";
import { cacheDir, dataDir, type Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { colorEnabled } from "../ui/style.ts";
import { errnoText } from "../util/error-text.ts";
import { byteSize } from "../util/numbers.ts";
import { type Check, check } from "./types.ts";

/** stdout's terminal: colour, width, TERM, NO_COLOR, tmux. A chat on a terminal without TERM is a `!`. */
export function terminalCheck(env: Env): Check {
  const isTTY = process.stdout.isTTY === true;
  const term = env.TERM === undefined || env.TERM === "" ? "TERM unset" : `TERM=${env.TERM}`;
  const parts = [
    isTTY ? `a terminal, ${process.stdout.columns || 80} columns` : "stdout is not a terminal",
    colorEnabled(isTTY, env) ? "colour" : "no colour",
    term,
  ];
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") parts.push("NO_COLOR set");
  if (env.TMUX) parts.push("in tmux");
  const detail = parts.join(", ");
  if (isTTY && (term === "TERM unset" || env.TERM === "dumb"))
    return check(
      "terminal",
      "terminal",
      "warn",
      detail,
      "set TERM (e.g. TERM=xterm-256color): ion chat draws with ANSI sequences",
    );
  return check("terminal", "terminal", "ok", detail);
}

/** The data dir: writable (a file written and removed), or creatable; what sessions, memory and the index take. */
export async function dataDirCheck(env: Env): Promise<Check> {
  const dir = dataDir(env);
  const shown = tildePath(dir, env.HOME);
  const fix = "make it writable, or set ION_DATA_DIR to a directory you can write";
  if (!existsSync(dir)) {
    const parent = nearestExisting(dir);
    if (!statSync(parent).isDirectory())
      return check(
        "data-dir",
        "data dir",
        "fail",
        `${shown} cannot be created: ${tildePath(parent, env.HOME)} is a file, not a directory`,
        fix,
      );
    try {
      await access(parent, constants.W_OK);
    } catch (err) {
      return check(
        "data-dir",
        "data dir",
        "fail",
        `${shown} cannot be created in ${tildePath(parent, env.HOME)} (${errnoText(err)})`,
        fix,
      );
    }
    return check("data-dir", "data dir", "ok", `${shown} does not exist yet; ion creates it on first use`);
  }
  const probe = join(dir, `.doctor-${process.pid}`);
  try {
    await writeFile(probe, "");
    await rm(probe);
  } catch (err) {
    return check("data-dir", "data dir", "fail", `${shown} is not writable (${errnoText(err)})`, fix);
  }
  const [sessions, memory, index] = await Promise.all([
    sizeOf(join(dir, "sessions")),
    Promise.all(["memory.db", "memory.db-wal", "memory.db-shm"].map((name) => sizeOf(join(dir, name)))),
    sizeOf(join(dir, "index")),
  ]);
  const total = await sizeOf(dir);
  const memoryBytes = memory.reduce((a, b) => a + b, 0);
  return check(
    "data-dir",
    "data dir",
    "ok",
    `${shown} writable, ${byteSize(total)} (sessions ${byteSize(sessions)}, memory ${byteSize(memoryBytes)}, index ${byteSize(index)})`,
  );
}

function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/** Bytes under `path` (a file's size; a directory's files, links not followed); 0 when missing. */
async function sizeOf(path: string): Promise<number> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch {
    return 0; // missing (or vanished meanwhile): nothing there to count
  }
  if (!info.isDirectory()) return info.isFile() ? info.size : 0;
  let entries: Dirent[];
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch {
    return 0; // unreadable: the writable check speaks for the data dir itself
  }
  const sizes = await Promise.all(entries.map((entry) => sizeOf(join(path, entry.name))));
  return sizes.reduce((a, b) => a + b, 0);
}

/** The sandbox `bash` would get, as a session finds it (the same probe and cache). */
export async function sandboxCheck(config: Config, env: Env): Promise<Check> {
  if (config.sandbox?.mode === "off")
    return check(
      "sandbox",
      "sandbox",
      "ok",
      "off (sandbox.mode off): bash commands run with your full rights",
    );
  const { detectSandbox } = await import("../sandbox/detect.ts");
  const found = await detectSandbox(join(cacheDir(env), "sandbox.json"));
  if (found.kind !== "none") {
    const { networkWords } = await import("../sandbox/command-sandbox.ts");
    const mode = config.sandbox?.mode ?? "workspace-write";
    const network = networkWords(config.sandbox?.network ?? false);
    return check("sandbox", "sandbox", "ok", `${found.kind} (${found.path ?? "found"}): ${mode}, ${network}`);
  }
  const fix =
    process.platform === "linux"
      ? "install bubblewrap (apt install bubblewrap, dnf install bubblewrap); or sandbox.mode off to run commands unsandboxed on purpose"
      : "sandbox.mode off runs commands unsandboxed on purpose and hides the warning";
  return check(
    "sandbox",
    "sandbox",
    "warn",
    `none: ${found.reason ?? "none is available here"}; bash commands run with your full rights`,
    fix,
  );
}
