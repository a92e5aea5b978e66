/**
 * The temp workspace the tool tests run in: a fresh `base` directory per test holding the workspace
 * `root` (`base/work`) and a sibling `outside` directory the tools must not reach, plus the
 * `ToolContext` a tool runs with there. Also a builder for file trees.
 */
import { afterEach, beforeEach } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolContext } from "../../src/tools/types.ts";

/** One test's workspace; every property is fresh per test and read only while a test runs. */
export interface ToolWorkspace {
  /** The temp directory holding `root` and `outside`; removed after each test. */
  readonly base: string;
  /** The workspace root, `base/work`. */
  readonly root: string;
  /** A directory beside the workspace, `base/outside`. */
  readonly outside: string;
  /** cwd `root`, nothing allowed, a live signal; a test may replace it (to allow `outside`, say). */
  ctx: ToolContext;
  /** `ctx` with a signal that is already aborted: a cancelled tool call. */
  cancelledCtx(): ToolContext;
}

interface WorkspaceState {
  base: string;
  root: string;
  outside: string;
  ctx: ToolContext;
}

/** Files `useToolWorkspace` puts in `outside` unless told otherwise. */
export const OUTSIDE_SECRET: Readonly<Record<string, string>> = { "secret.txt": "TOP-SECRET\n" };

/**
 * Registers beforeEach/afterEach hooks that make a fresh workspace (in a temp directory named after
 * `prefix`, with `outsideFiles` written to `outside`) before each test and remove it after.
 */
export function useToolWorkspace(
  prefix: string,
  outsideFiles: Readonly<Record<string, string>> = OUTSIDE_SECRET,
): ToolWorkspace {
  let current: WorkspaceState | undefined;
  const state = (): WorkspaceState => {
    if (!current) throw new Error("the tool workspace exists only while a test runs");
    return current;
  };

  beforeEach(() => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    const root = join(base, "work");
    const outside = join(base, "outside");
    mkdirSync(root);
    mkdirSync(outside);
    tree(outside, outsideFiles);
    current = {
      base,
      root,
      outside,
      ctx: { cwd: root, allow: [], signal: new AbortController().signal, callId: "call-1", sessionId: "s" },
    };
  });

  afterEach(() => {
    if (current) rmSync(current.base, { recursive: true, force: true });
    current = undefined;
  });

  return {
    get base() {
      return state().base;
    },
    get root() {
      return state().root;
    },
    get outside() {
      return state().outside;
    },
    get ctx() {
      return state().ctx;
    },
    set ctx(ctx: ToolContext) {
      state().ctx = ctx;
    },
    cancelledCtx() {
      return { ...state().ctx, signal: AbortSignal.abort() };
    },
  };
}

/** Writes files (creating parents) below `dir`. */
export function tree(dir: string, files: Readonly<Record<string, string | Uint8Array>>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
}
