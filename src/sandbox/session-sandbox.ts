/**
 * The sandbox a session opens with: the mode (`--sandbox` › config `sandbox.mode` › workspace-write),
 * the network, the writable directories, and the mechanism found on this machine. The probe runs in
 * parallel with the rest of the session's set-up and only when a mode other than off asks for it.
 */
import { join } from "node:path";
import { cacheDir, configuredDir, type Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { CommandSandbox } from "./command-sandbox.ts";
import { detectSandbox } from "./detect.ts";
import type { SandboxMode, SessionSandbox } from "./types.ts";

export interface SandboxRequest {
  cwd: string;
  env: Env;
  config: Config;
  /** `--sandbox MODE`. */
  mode?: SandboxMode | undefined;
  /** `--add-dir` directories (writable like `workspace.allow`). */
  addDirs?: readonly string[] | undefined;
}

/** Starts finding the mechanism; the promise resolves to the session's sandbox. */
export async function openSessionSandbox(request: SandboxRequest): Promise<CommandSandbox> {
  const { config, cwd } = request;
  const mode = request.mode ?? config.sandbox?.mode ?? "workspace-write";
  const writable = [...(config.workspace?.allow ?? []), ...(request.addDirs ?? [])].map((dir) =>
    configuredDir(cwd, dir),
  );
  const base = {
    mode,
    network: config.sandbox?.network ?? false,
    writable,
    allowEscalation: config.sandbox?.allow_escalation === true,
  };
  if (mode === "off") return new CommandSandbox({ ...base, kind: "none" });
  const cacheFile = join(cacheDir(request.env), "sandbox.json");
  const found = await detectSandbox(cacheFile);
  const settings: SessionSandbox = { ...base, kind: found.kind };
  if (found.path) settings.path = found.path;
  if (found.reason) settings.reason = found.reason;
  return new CommandSandbox(settings, cacheFile);
}

/** The one line a session says when it cannot give the sandbox its mode asks for. */
export function unavailableNotice(sandbox: CommandSandbox): string | undefined {
  const s = sandbox.current;
  if (s.mode === "off" || s.kind !== "none") return undefined;
  return `warning: no sandbox: ${s.reason ?? "none is available here"}; bash commands run with your full rights (sandbox.mode off hides this warning)`;
}
