import type { PermissionMode } from "../agent/permissions.ts";
import type { ProjectTrust } from "../agent/session-options.ts";
import type { HookResponse, HooksContext, HooksExtension } from "../hooks/extension.ts";
import type { ApproveFn } from "../tools/types.ts";
import { isPlainObject } from "../util/plain-object.ts";
import { readJson } from "./load.ts";
import { configFiles, dataDir, type Env } from "./paths.ts";

/** Claude Code's names of ion's permission modes, for a hook's `permission_mode`. */
const CLAUDE_MODES: Record<PermissionMode, string> = {
  read: "plan",
  ask: "default",
  auto: "bypassPermissions",
};

/**
 * The hooks extension of a session, when any hook is configured: the user config's `hooks`, then a
 * trusted project's (`.ion/config.json`, `.claude/settings.json`, as the trust gate hashed them).
 * Without hooks nothing of src/hooks is loaded.
 */
export async function sessionHooks(options: {
  cwd: string;
  env: Env;
  projectTrust: ProjectTrust | undefined;
  mode: PermissionMode;
  notice: (line: string) => void;
  /** stream-json's `hook_response` lines, for hooks that blocked, failed or timed out. */
  onResponse?: ((response: HookResponse) => void) | undefined;
  /** A Claude Agent SDK program's hooks (its `initialize`): a second extension, after the configured hooks. */
  program?:
    | { hooks: Record<string, unknown>; runCallback: NonNullable<HooksContext["runCallback"]> }
    | undefined;
}): Promise<HooksExtension[]> {
  const { program } = options;
  const configured = await configuredHooks(options);
  if (!program || Object.keys(program.hooks).length === 0) return configured;
  const { hooksExtension } = await import("../hooks/extension.ts");
  return [
    ...configured,
    hooksExtension([program.hooks], { ...(await hooksContext(options)), runCallback: program.runCallback }),
  ];
}

/** What both kinds of hooks are run with: where, for which session file, in which mode. */
async function hooksContext(options: Parameters<typeof sessionHooks>[0]): Promise<HooksContext> {
  const { cwd, env, projectTrust } = options;
  const { SessionStore } = await import("../history/store.ts");
  const store = SessionStore.forDataDir(dataDir(env));
  return {
    cwd,
    env,
    projectDir: projectTrust?.project.root ?? cwd,
    transcriptPath: (id) => store.pathOf(id),
    permissionMode: CLAUDE_MODES[options.mode],
    notice: options.notice,
    onResponse: options.onResponse,
  };
}

async function configuredHooks(options: Parameters<typeof sessionHooks>[0]): Promise<HooksExtension[]> {
  const { cwd, env, projectTrust } = options;
  const sources: Record<string, unknown>[] = [];
  const user = await readJson(configFiles(cwd, env).user);
  if (isPlainObject(user) && isPlainObject(user.hooks)) sources.push(user.hooks);
  if (projectTrust?.trusted) sources.push(...(projectTrust.project.hooks ?? []));
  if (!sources.some((source) => Object.keys(source).length > 0)) return [];
  const { hooksExtension } = await import("../hooks/extension.ts");
  return [hooksExtension(sources, await hooksContext(options))];
}

/**
 * The approver, telling Notification hooks that an approval is waiting as the question is asked (they
 * run beside it: the question does not wait for them). Unchanged without such hooks.
 */
export function notifyingApprover(
  approve: ApproveFn | undefined,
  hooks: readonly HooksExtension[],
  notice: (line: string) => void,
): ApproveFn | undefined {
  const waiting = hooks.flatMap((hook) => (hook.approvalWaiting ? [hook.approvalWaiting.bind(hook)] : []));
  if (!approve || waiting.length === 0) return approve;
  return (call) => {
    for (const notify of waiting)
      notify(call.name).catch((err: unknown) => notice(`warning: Notification hook failed: ${String(err)}`));
    return approve(call);
  };
}
