import type { Env } from "../config/paths.ts";
import { IonError } from "../errors.ts";

/** The setup flow on a terminal; the exact commands to run otherwise. Returns once a model is saved. */
export async function ensureModelConfigured(options: {
  interactive: boolean;
  cwd: string;
  env: Env;
}): Promise<void> {
  const { firstRun, noModelMessage } = await import("../ui/first-run.ts");
  if (!options.interactive) {
    const { message, hint } = noModelMessage(options.env);
    throw new IonError("config", message, { hint });
  }
  const { clackPrompter } = await import("../ui/prompter.ts");
  await firstRun({ cwd: options.cwd, env: options.env, continuing: true, prompter: await clackPrompter() });
}
