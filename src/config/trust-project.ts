import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { errnoOf } from "../util/error-text.ts";
import { locateRepository } from "../util/git.ts";
import { isPlainObject } from "../util/plain-object.ts";
import { readProjectText } from "../util/project-file.ts";
import { maskHeaderValue, maskKey, maskUrl } from "../util/secrets.ts";
import { escapeControls } from "../util/terminal-text.ts";
import { configFiles, type Env } from "./paths.ts";
import { projectKeyRule } from "./project-rules.ts";

/**
 * What a project would run on the user's machine, or change about where the user's key goes, once
 * trusted: the servers of its `.mcp.json` (at the project's root), and what its `.ion/config.json`
 * sets that needs trust (project-rules.ts: `mcpServers`, `hooks`, `api_base`, `headers`, `api_key`,
 * `tools`, `permissions`). Files are read through the one reader for repository files.
 *
 *   projectRoot(cwd) → the git root (else cwd), symlinks resolved: the trust store's key
 *   projectRunnables(cwd, env) → { root, items, hash, mcpServers, warnings }
 *
 * `items` are for people (secrets masked, control characters written out); `hash` is a sha256 over
 * the exact definitions, so any change to them — a server's arguments, a hook's command, a header —
 * asks again.
 */

const MCP_JSON = ".mcp.json";

export interface ProjectItem {
  /** The file it is defined in (absolute). */
  file: string;
  kind: "mcp-server" | "hook" | "setting";
  /**
   * The setting that needs trust (`mcpServers`, `hooks`, `providers.openai.api_base`), or a server's
   * name in `.mcp.json`; written out for a terminal as `label` and `what` are.
   */
  key: string;
  /** `MCP server "fs"`, `hook PreToolUse (Bash)`, `providers.openai.api_base`. */
  label: string;
  /** Exactly what runs or is set: a command line, a URL, a value — secrets masked. */
  what: string;
}

export interface ProjectRunnables {
  /** The project's root, symlinks resolved. */
  root: string;
  items: ProjectItem[];
  /** sha256 (hex) of every definition behind `items`, as written. */
  hash: string;
  /** `.mcp.json`'s `mcpServers` exactly as read and hashed: what the MCP client starts once trusted. */
  mcpServers: Record<string, unknown> | undefined;
  /** A project file that was refused or is not JSON, one line each: nothing in it runs. */
  warnings: string[];
  /** The `hooks` of `.ion/config.json` and `.claude/settings.json` exactly as read and hashed: what runs once trusted. */
  hooks?: Record<string, unknown>[];
}

/** Claude Code's project settings: only its `hooks` are read (they run commands, so they need trust). */
const CLAUDE_SETTINGS = join(".claude", "settings.json");

/** The project a directory belongs to: its git repository's root, else the directory; real path. */
export function projectRoot(cwd: string): string {
  const root = locateRepository(resolve(cwd)).repo?.root ?? resolve(cwd);
  try {
    return realpathSync(root);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return root;
    throw err;
  }
}

export function projectRunnables(cwd: string, env: Env, root: string = projectRoot(cwd)): ProjectRunnables {
  const warnings: string[] = [];
  const items: ProjectItem[] = [];
  const mcpFile = join(root, MCP_JSON);
  const mcpDocument = readJsonFile(mcpFile, root, warnings);
  let mcpServers: Record<string, unknown> | undefined;
  if (mcpDocument !== undefined) {
    const servers = isPlainObject(mcpDocument) ? mcpDocument.mcpServers : undefined;
    if (isPlainObject(servers)) mcpServers = servers;
    else warnings.push(`${mcpFile}: no "mcpServers" object; no MCP server from it is started`);
  }
  for (const [name, entry] of Object.entries(mcpServers ?? {}))
    items.push(serverItem(mcpFile, name, name, entry));

  const files = configFiles(cwd, env);
  // The user's own config (a config dir inside the project) is always trusted.
  // Loading the config names that file's problems itself: said here too, they would be said twice.
  const config = files.project === files.user ? undefined : readJsonFile(files.project, root, []);
  const settings = isPlainObject(config) ? trustedSettings(config) : [];
  for (const [path, value] of settings) items.push(...settingItems(files.project, path, value));
  const hooks = settings.flatMap(([path, value]) =>
    path.join(".") === "hooks" && isPlainObject(value) ? [value] : [],
  );
  const claudeFile = join(root, CLAUDE_SETTINGS);
  const claude = readJsonFile(claudeFile, root, warnings);
  const claudeHooks = isPlainObject(claude) && isPlainObject(claude.hooks) ? claude.hooks : undefined;
  if (claudeHooks) {
    items.push(...hookItems(claudeFile, claudeHooks));
    hooks.push(claudeHooks);
  }

  // Claude Code's hooks join the hash only when there are some: other projects' stored trust still holds.
  const hash = new Bun.CryptoHasher("sha256")
    .update(canonical({ mcpServers: mcpServers ?? null, settings, ...(claudeHooks ? { claudeHooks } : {}) }))
    .digest("hex");
  return { root, items, hash, mcpServers, warnings, hooks };
}

/** A project's JSON file through the project-file rules; undefined when absent, refused or not JSON (said in `warnings`). */
function readJsonFile(file: string, root: string, warnings: string[]): unknown {
  const read = readProjectText(file, root);
  if (read.kind === "missing") return undefined;
  if (read.kind === "refused") {
    warnings.push(`skipped ${file}: ${read.reason}`);
    return undefined;
  }
  if (read.text.trim() === "") return {};
  try {
    return JSON.parse(read.text);
  } catch {
    // The parser's message may quote the file's text; loading the config names the place itself.
    warnings.push(`skipped ${file}: not valid JSON`);
    return undefined;
  }
}

/** The settings of a project config that only a trusted project may set: `[path, value]`, in file order. */
function trustedSettings(config: Record<string, unknown>): Array<[string[], unknown]> {
  const found: Array<[string[], unknown]> = [];
  const walk = (node: Record<string, unknown>, prefix: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      const path = [...prefix, key];
      const rule = projectKeyRule(path);
      if (rule === "trusted") found.push([path, value]);
      // A section a project may set (`providers`) holds parts that need trust (`providers.x.api_base`).
      else if (rule === "project" && isPlainObject(value)) walk(value, path);
    }
  };
  walk(config, []);
  return found;
}

function settingItems(file: string, path: string[], value: unknown): ProjectItem[] {
  const key = path.join(".");
  if (key === "mcpServers" && isPlainObject(value))
    return Object.entries(value).map(([name, entry]) => serverItem(file, key, name, entry));
  if (key === "hooks" && isPlainObject(value)) return hookItems(file, value);
  return [
    { file, kind: "setting", key: shown(key), label: shown(key), what: shown(settingValue(path, value)) },
  ];
}

/** A setting's value with its secrets masked: keys, URL credentials, secret-looking headers. */
function settingValue(path: string[], value: unknown): string {
  const name = path.at(-1);
  if (name === "api_key" && typeof value === "string") return maskKey(value);
  if (name === "api_base" && typeof value === "string") return maskUrl(value);
  if (name === "headers" && isPlainObject(value))
    return JSON.stringify(
      Object.fromEntries(
        Object.entries(value).map(([header, v]) => [
          header,
          typeof v === "string" ? maskHeaderValue(header, v) : v,
        ]),
      ),
    );
  return JSON.stringify(value) ?? String(value);
}

/** Claude Code's shape: `hooks.<Event>[] = {matcher, hooks: [{type: "command", command, timeout}]}`. */
function hookItems(file: string, hooks: Record<string, unknown>): ProjectItem[] {
  const items: ProjectItem[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    const list = Array.isArray(groups) ? groups : [groups];
    for (const group of list) {
      const matcher = isPlainObject(group) && typeof group.matcher === "string" ? group.matcher : "";
      const label = shown(`hook ${event}${matcher === "" ? "" : ` (${matcher})`}`);
      const commands = isPlainObject(group) && Array.isArray(group.hooks) ? group.hooks : [group];
      for (const hook of commands) {
        const command = isPlainObject(hook) && typeof hook.command === "string" ? hook.command : undefined;
        items.push({ file, kind: "hook", key: "hooks", label, what: shown(command ?? JSON.stringify(hook)) });
      }
    }
  }
  return items;
}

/** One MCP server: its command line (with its environment and directory), or its URL and headers. */
function serverItem(file: string, key: string, name: string, entry: unknown): ProjectItem {
  const item = { file, kind: "mcp-server" as const, key: shown(key), label: shown(`MCP server "${name}"`) };
  if (!isPlainObject(entry)) return { ...item, what: shown(JSON.stringify(entry) ?? String(entry)) };
  if (typeof entry.command === "string") {
    const args = Array.isArray(entry.args)
      ? entry.args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg)))
      : [];
    const env = isPlainObject(entry.env) ? Object.entries(entry.env) : [];
    const assignments = env.map(([variable, value]) => {
      const masked = maskHeaderValue(variable, String(value));
      // A masked secret is not a word to quote: it never reaches a shell.
      return `${variable}=${masked === String(value) ? shellWord(masked) : masked}`;
    });
    const line = [...assignments, ...[entry.command, ...args].map(shellWord)].join(" ");
    const dir = typeof entry.cwd === "string" ? ` (in ${entry.cwd})` : "";
    return { ...item, what: shown(`${line}${dir}`) };
  }
  if (typeof entry.url === "string") {
    const type = typeof entry.type === "string" ? entry.type : "http";
    const headers = isPlainObject(entry.headers)
      ? Object.entries(entry.headers).map(
          ([header, value]) => ` ${header}: ${maskHeaderValue(header, String(value))}`,
        )
      : [];
    return {
      ...item,
      what: shown(
        `${type} ${maskUrl(entry.url)}${headers.length > 0 ? ` with headers${headers.join(",")}` : ""}`,
      ),
    };
  }
  return { ...item, what: shown(JSON.stringify(entry)) };
}

/** A word as a shell would need it written: bare when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Text from a repository as it may be shown: control characters and invisible ones written out, on one line. */
function shown(text: string): string {
  return escapeControls(text).replaceAll("\n", "\\n").replaceAll("\t", "\\t");
}

/** JSON with object keys sorted, so the hash does not depend on how a file orders them. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}
