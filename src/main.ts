#!/usr/bin/env bun
/**
 * Entry point. `--version` (and `version`) is answered before anything else loads; everything else goes through the
 * lazy command table in cli.ts. This is the only place that sets the process's exit status.
 *
 * Start-up note: the first touch of `process.stdout` / `process.stderr` (even `"stdout" in process`)
 * makes Bun build its node streams, ~20 ms on a 2-core machine — three times a whole hello-world. The
 * fast paths (`--version`, `--help`, usage errors) therefore write with `Bun.write(Bun.stdout)` and
 * `console.error`, which cost nothing, and only cli.ts flushes the streams, once a command has run.
 */
import { writeFast } from "./util/stdout.ts";
import { VERSION_TEXT } from "./version.ts";

function exit(code: number): void {
  process.exit(code);
}

async function main(argv: string[]): Promise<number> {
  // `-v` alone too, as Claude Code reads it: the Python Agent SDK checks its engine's version that way.
  if (argv.length === 1 && ["--version", "-V", "-v", "version"].includes(argv[0] ?? ""))
    return writeFast(`ion ${VERSION_TEXT}\n`);
  const { dispatch } = await import("./cli.ts");
  return dispatch(argv, exit);
}

// Exit explicitly: an SDK's idle keep-alive socket must not hold a finished run open. `dispatch` has
// already flushed anything written through process.stdout/stderr (and `exit` is also how it ends ion
// early when its output is closed).
// ION_SANDBOX_BRIDGE: ion started inside bwrap's sandbox as the bridge to the host proxy (sandbox/bridge.ts).
const bridge = process.env.ION_SANDBOX_BRIDGE;
if (bridge === undefined) main(process.argv.slice(2)).then(exit);
else
  import("./sandbox/bridge-main.ts")
    .then(({ runBridge }) => runBridge(bridge, process.argv.slice(2)))
    .then(exit);
