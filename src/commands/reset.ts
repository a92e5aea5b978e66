import { type ArgsDef, defineCommand } from "citty";

/** Flag definitions only; the work (fs, locks, prompt) is in sessions-reset.ts, imported inside run(). */
export const resetArgs = {
  yes: {
    type: "boolean",
    alias: "y",
    description: "Delete without asking (needed when stdin is not a terminal)",
  },
  all: {
    type: "boolean",
    description: "Also wipe memory: everything ion learnt across sessions (memory.db)",
  },
} as const satisfies ArgsDef;

/**
 * `ion reset [-y] [--all]`: deletes all chat history — `<data>/sessions`, `<data>/trash`,
 * `<data>/input_history`; with `--all` memory too (`<data>/memory.db` emptied, damaged copies deleted).
 * Asks on a terminal; without one it refuses unless `-y` (a usage error, exit 64), so a script can
 * never wipe history by accident.
 */
export default defineCommand({
  meta: {
    name: "reset",
    description: "Delete all chat history: sessions, trash and input history (--all: memory too)",
  },
  args: resetArgs,
  async run({ rawArgs }) {
    const { resetHistory } = await import("./sessions-reset.ts");
    await resetHistory(rawArgs);
  },
});
