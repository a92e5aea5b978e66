/**
 * What the sandbox adds to a `bash` call (issue 25's bar: < 10 ms per call on the build machine). The
 * bash tool runs `true` through its real code path — spawn, watchdog, output pumps, exit — with the
 * sandbox enforced (bwrap on Linux, sandbox-exec on macOS) and with `sandbox.mode: off`, call by call
 * in alternation so that noise hits both alike, in one warm process. The difference of the medians is
 * the cost of the sandbox. Prints PASS/MISS and exits 0 whatever the figures.
 *
 *   bun bench/sandbox.ts [--rounds N (200)] [--network] (network allowed: no network namespace)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommandSandbox } from "../src/sandbox/command-sandbox.ts";
import { detectSandbox } from "../src/sandbox/detect.ts";
import { bashTool } from "../src/tools/bash.ts";
import type { ToolContext } from "../src/tools/types.ts";
import { median, ms, quantile, recordSummary, verdict } from "./lib.ts";

const args = process.argv.slice(2);
const roundsAt = args.indexOf("--rounds");
const ROUNDS = roundsAt >= 0 ? Math.max(10, Number(args[roundsAt + 1]) || 200) : 200;
const NETWORK = args.includes("--network");
const TARGET_MS = 10;

const found = await detectSandbox();
if (found.kind === "none" || !found.path) {
  console.log(`no sandbox on this machine (${found.reason}); nothing to measure`);
  process.exit(0);
}
const workspace = mkdtempSync(join(tmpdir(), "ion-bench-sandbox-"));
const settings = {
  kind: found.kind,
  path: found.path,
  network: NETWORK,
  writable: [] as string[],
  allowEscalation: false,
};
const sandboxed = new CommandSandbox({ ...settings, mode: "workspace-write" });
const unsandboxed = new CommandSandbox({ ...settings, mode: "off" });

async function call(sandbox: CommandSandbox): Promise<number> {
  const ctx: ToolContext = {
    cwd: workspace,
    allow: [],
    sandbox,
    signal: new AbortController().signal,
    callId: "bench",
    sessionId: "bench",
  };
  const started = performance.now();
  const outcome = await bashTool.execute({ command: "true" }, ctx);
  const took = performance.now() - started;
  if (outcome.is_error) throw new Error(`bash true failed: ${outcome.content}`);
  return took;
}

try {
  for (let i = 0; i < 10; i++) await Promise.all([call(sandboxed), call(unsandboxed)]);
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      on.push(await call(sandboxed));
      off.push(await call(unsandboxed));
    } else {
      off.push(await call(unsandboxed));
      on.push(await call(sandboxed));
    }
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const added = median(on) - median(off);
  const row = (name: string, values: number[]) =>
    `${name.padEnd(28)} p50 ${median(values).toFixed(2)} ms   p90 ${quantile(sorted(values), 0.9).toFixed(2)} ms`;
  console.log(`bash "true", ${ROUNDS} calls each, ${found.kind}${NETWORK ? " (network allowed)" : ""}`);
  console.log(row("sandbox.mode off", off));
  console.log(row(`sandboxed (${found.kind})`, on));
  console.log(
    `added per call: ${added.toFixed(2)} ms (target < ${TARGET_MS} ms) ${verdict(added < TARGET_MS)}`,
  );
  recordSummary([
    {
      bench: "sandbox",
      name: `bash true, ${found.kind} (added to sandbox off)`,
      value: ms(added),
      floor: ms(median(off)),
      target: `< ${TARGET_MS} ms added`,
      pass: added < TARGET_MS,
    },
  ]);
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
