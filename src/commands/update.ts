import { type ArgsDef, defineCommand } from "citty";

/** Flag definitions only; the work (network, files) is in update-run.ts, imported inside run(). */
export const updateArgs = {
  check: {
    type: "boolean",
    description: "Only say whether a newer release exists (this version and the latest); change nothing",
  },
  version: {
    type: "string",
    valueHint: "V",
    description: "Install release V (e.g. 0.3.1) instead of the latest, older or newer",
  },
} as const satisfies ArgsDef;

/**
 * `ion update [--check] [--version V]`: downloads this platform's release asset and the release's
 * SHA256SUMS from where install.sh gets them (`ION_INSTALL_BASE` overrides it), checks the sum and
 * replaces the running binary; the previous one is kept as `ion.old`. Only when asked: ion never
 * updates itself.
 */
export default defineCommand({
  meta: {
    name: "update",
    description:
      "Replace this ion with the latest release (or --version V), checksum verified; --check only looks",
  },
  args: updateArgs,
  async run({ rawArgs }) {
    const { update } = await import("./update-run.ts");
    await update(rawArgs);
  },
});
