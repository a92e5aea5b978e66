import type { RenderOptions } from "../../src/ui/renderer.ts";

/** Renderer options writing to memory: plain (no terminal, no colour) unless `overrides` say otherwise. */
export function captureRender(overrides: Partial<RenderOptions> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const options: RenderOptions = {
    stdout: { write: (t) => void stdout.push(t) },
    stderr: { write: (t) => void stderr.push(t) },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    quiet: false,
    verbose: false,
    partial: false,
    color: false,
    ...overrides,
  };
  return { options, out: () => stdout.join(""), err: () => stderr.join(""), chunks: stdout };
}
