#!/usr/bin/env bun
/**
 * Entry point. `--version` is answered before anything else loads; everything else goes through the
 * lazy command table in cli.ts. This is the only place that sets the process's exit status.
 *
 * Start-up note: the first touch of `process.stdout` / `process.stderr` (even `"stdout" in process`)
 * makes Bun build its node streams, ~20 ms on a 2-core machine — three times a whole hello-world. The
 * fast paths (`--version`, `--help`, usage errors) therefore write with `console.*`, which is
 * synchronous and free, and only cli.ts flushes the streams, once a command has run.
 */
import { VERSION } from "./version.ts";

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    console.log(`ion ${VERSION}`);
    return 0;
  }
  const { dispatch } = await import("./cli.ts");
  return dispatch(argv);
}

// Exit explicitly: an SDK's idle keep-alive socket must not hold a finished run open. `dispatch` has
// already flushed anything written through process.stdout/stderr.
main(process.argv.slice(2)).then((code) => process.exit(code));
