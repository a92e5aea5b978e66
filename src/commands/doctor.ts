import { type ArgsDef, defineCommand } from "citty";

/** Flag definitions only; the checks (config, network, MCP servers) are in doctor-run.ts. */
export const doctorArgs = {
  json: {
    type: "boolean",
    description: "Print a JSON array of checks ({id, status, title, detail, fix?}) instead of lines",
  },
  timeout: {
    type: "string",
    valueHint: "seconds",
    description: "How long each provider and the release server may take to answer (default 5)",
  },
} as const satisfies ArgsDef;

/**
 * `ion doctor [--json] [--timeout SECONDS]`: one ✓/!/✗ line per check — config, keys' sources,
 * providers reachable, terminal, data dir, sandbox, MCP servers, version — with the fix for each
 * problem; exit 1 when any check fails.
 */
export default defineCommand({
  meta: {
    name: "doctor",
    description:
      "Check config, keys, providers, terminal, data dir, sandbox, MCP and version; say what to fix",
  },
  args: doctorArgs,
  async run({ rawArgs }) {
    const { doctor } = await import("./doctor-run.ts");
    await doctor(rawArgs);
  },
});
