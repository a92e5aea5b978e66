/**
 * End to end: favourites (config `favorites`) through the real CLI — starred in `ion models`, alone with
 * `ion models --fav` (from the cache, a favourite the catalogue lacks still listed), validated by
 * `ion config set`, and not settable by a project file. The chat's side is chat-favorites-tmux.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type IonRun, Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";

const KEY = "sk-test-favorites-0000000000000000777";
const { server, env } = useOpenAIServer(KEY, (url) => ({ ION_MODELS_URL: `${url}/api.json` }));

const lines = (run: IonRun) => run.stdout.trimEnd().split("\n");

/** A sandbox whose catalogue cache lists openai's gpt-4o and gpt-4o-mini, with `favorites` configured. */
async function withFavorites(box: Sandbox, favorites: string[] | undefined): Promise<void> {
  await warmCatalog(server, box, env);
  await box.writeConfig(favorites === undefined ? {} : { favorites });
}

describe("favourites in ion models", () => {
  test("a favourite's row is starred with an ASCII `*`; the rest are indented to match; --json keeps its fields", async () => {
    using box = new Sandbox();
    await withFavorites(box, ["openai/gpt-4o-mini"]);
    const run = await box.run(["models"], { env });
    expect(run.code).toBe(0);
    const [header, ...rows] = lines(run);
    expect(header).toMatch(/^Model\s+Provider\s+Context/);
    expect(rows.find((r) => r.includes("gpt-4o-mini"))).toMatch(/^\* openai\/gpt-4o-mini\s+openai\s/);
    expect(rows.find((r) => r.includes("gpt-4o "))).toMatch(/^ {2}openai\/gpt-4o\s+openai\s/);
    // The provider column stays aligned under its header on both rows.
    const at = header!.indexOf("Provider");
    for (const row of rows) expect(row.slice(at, at + "openai".length)).toBe("openai");

    // SPEC §4's JSON fields are a contract: no extra field for the star.
    const json = JSON.parse((await box.run(["models", "--json"], { env })).stdout) as object[];
    for (const item of json) expect(Object.keys(item)).not.toContain("favorite");
  });

  test("without favourites the table is as it always was: no star column", async () => {
    using box = new Sandbox();
    await withFavorites(box, undefined);
    const run = await box.run(["models"], { env });
    expect(run.code).toBe(0);
    for (const row of lines(run).slice(1)) expect(row).toMatch(/^openai\//);
  });

  test("--fav lists only the favourites, in their order, from the cache; one the catalogue lacks says so", async () => {
    using box = new Sandbox();
    await withFavorites(box, ["openai/nosuch-9", "openai/gpt-4o"]);
    const before = server.requests.length;
    const run = await box.run(["models", "--fav"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const rows = lines(run).slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^\* openai\/nosuch-9\s+openai\s+unknown\s.*unknown: not in the catalogue$/);
    expect(rows[1]).toMatch(/^\* openai\/gpt-4o\s+openai\s+128k\s/);
    expect(server.requests.length).toBe(before); // the fresh cache answered: no network

    const json = JSON.parse((await box.run(["models", "--fav", "--json"], { env })).stdout) as Array<
      Record<string, unknown>
    >;
    expect(json.map((m) => m.id)).toEqual(["openai/nosuch-9", "openai/gpt-4o"]);
    expect(json[0]).toMatchObject({ provider: "openai", model: "nosuch-9", context: null, configured: true });
  });

  test("--fav with no catalogue at all (no cache, server gone) still lists the favourites, with a warning", async () => {
    using box = new Sandbox();
    await box.writeConfig({ favorites: ["openai/gpt-4o"] });
    const offline = {
      ...env,
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      ION_MODELS_URL: "http://127.0.0.1:9/api.json",
    };
    const run = await box.run(["models", "--fav"], { env: offline });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("ion: warning: cannot fetch the model catalogue");
    expect(lines(run).slice(1)).toEqual([
      expect.stringMatching(/^\* openai\/gpt-4o\s.*not in the catalogue$/),
    ]);
  });

  test("--fav without favourites says how to add one", async () => {
    using box = new Sandbox();
    const run = await box.run(["models", "--fav"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("no favourites yet");
  });
});

describe("the favorites setting", () => {
  test("config set takes provider/model ids only, and leaves the file unchanged on refusal", async () => {
    using box = new Sandbox();
    const ok = await box.run([
      "config",
      "set",
      "favorites",
      '["openai/gpt-4o","anthropic/claude-sonnet-4-5"]',
    ]);
    expect(ok.code).toBe(0);
    const file = join(box.configDir, "config.json");
    const saved = readFileSync(file, "utf8");
    expect(JSON.parse(saved).favorites).toEqual(["openai/gpt-4o", "anthropic/claude-sonnet-4-5"]);

    for (const bad of ['["gpt-4o"]', '["openai/"]', '["/gpt-4o"]', '["openai/gpt 4o"]']) {
      const run = await box.run(["config", "set", "favorites", bad]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("cannot set favorites[0]: expected provider/model, e.g. openai/gpt-4o");
      expect(readFileSync(file, "utf8")).toBe(saved);
    }
  });

  test("a project file cannot set favourites: ignored with a warning, nothing starred", async () => {
    using box = new Sandbox();
    await withFavorites(box, undefined);
    mkdirSync(join(box.workspace, ".ion"));
    writeFileSync(
      join(box.workspace, ".ion", "config.json"),
      JSON.stringify({ favorites: ["openai/gpt-4o"] }),
    );
    const run = await box.run(["models"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('ignored "favorites"');
    expect(run.stdout).not.toContain("* openai/");
  });
});
