/**
 * End to end: favourites in the chat on a real terminal (tmux) — first in the `/model` picker (starred)
 * and in its Tab completion, and `/model star` / `/model unstar` saving the model in use to the user
 * config. `ion models`' side is models-favorites.test.ts. Waits poll the screen; nothing sleeps for a
 * fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("chat-favorites-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-chat-favorites-000000000042", (url) => ({
  ION_MODELS_URL: `${url}/api.json`,
}));
// The catalogue lists them by id (gpt-4.1, gpt-4o, gpt-4o-mini): the favourite, gpt-4o-mini, comes last.
const IDS = ["gpt-4o", "gpt-4o-mini", "gpt-4.1"];
const FAVORITE = "openai/gpt-4o-mini";
/** The favourite, then the others. */
const ORDER = [FAVORITE, "openai/gpt-4.1", "openai/gpt-4o"];

/** A sandbox with a warm catalogue, `config`, and `ion chat` waiting at its prompt. */
async function chatIn(box: Sandbox, config: Record<string, unknown>): Promise<Terminal> {
  await box.writeConfig(config);
  await warmCatalog(server, box, env, IDS);
  const term = await Terminal.start({ args: ["chat"], env: box.env(env), cwd: box.workspace, cols: 120 });
  await term.waitFor((screen) => screen.endsWith("\n> "), 10_000);
  return term;
}

function savedFavorites(box: Sandbox): unknown {
  return (JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8")) as { favorites?: unknown })
    .favorites;
}

/** Where each id first appears on the screen (as a whole id, not a prefix of a longer one). */
function positions(screen: string, ids: string[]): number[] {
  return ids.map((id) => screen.search(new RegExp(`${id.replace(/[.]/g, "\\.")}(?![\\w.-])`)));
}

describe.skipIf(!HAS_TMUX)("favourites in the chat", () => {
  test("the /model picker lists the favourites first, starred", async () => {
    using box = new Sandbox();
    const term = await chatIn(box, { model: "openai/gpt-4.1", favorites: [FAVORITE] });
    await term.sendText("/model");
    await term.sendKeys("Enter");
    const picker = (screen: string) => screen.slice(screen.lastIndexOf("/model"));
    const screen = await term.waitFor((s) => !positions(picker(s), ORDER).includes(-1));
    expect(screen).toContain(`★ ${FAVORITE}`);
    const [fav, first, second] = positions(picker(screen), ORDER);
    expect(fav).toBeGreaterThan(-1);
    expect(fav).toBeLessThan(first!);
    expect(fav).toBeLessThan(second!);
  });

  test("Tab after /model offers the favourites first", async () => {
    using box = new Sandbox();
    const term = await chatIn(box, { model: "openai/gpt-4.1", favorites: [FAVORITE] });
    await term.sendText("/model openai/gpt-");
    // readline's first Tab completes what the candidates share, the second lists them, in the order given.
    await term.sendKeys("Tab");
    await term.waitFor((s) => s.endsWith("\n> /model openai/gpt-4"));
    await term.sendKeys("Tab");
    const list = (s: string) => s.slice(s.indexOf("> /model openai/gpt-4") + 1, s.lastIndexOf("> /model"));
    const screen = await term.waitFor(
      (s) => s.endsWith("> /model openai/gpt-4") && !positions(list(s), ORDER).includes(-1),
    );
    const [fav, first, second] = positions(list(screen), ORDER);
    expect(fav).toBeGreaterThan(-1);
    expect(fav).toBeLessThan(first!);
    expect(fav).toBeLessThan(second!);
  });

  test("/model star saves the model in use as a favourite, /model unstar removes it, each said", async () => {
    using box = new Sandbox();
    const term = await chatIn(box, { model: "openai/gpt-4o-mini", favorites: ["openai/gpt-4.1"] });
    const file = join(box.configDir, "config.json");
    await term.sendText("/model star");
    await term.sendKeys("Enter");
    await term.waitFor(`★ starred openai/gpt-4o-mini (saved as your default in ${file})`);
    expect(savedFavorites(box)).toEqual(["openai/gpt-4.1", "openai/gpt-4o-mini"]);

    // The picker follows at once: both favourites first, in their order.
    await term.sendText("/model");
    await term.sendKeys("Enter");
    const screen = await term.waitFor("★ openai/gpt-4o-mini");
    const [a, b, rest] = positions(screen.slice(screen.lastIndexOf("/model")), [
      "openai/gpt-4.1",
      "openai/gpt-4o-mini",
      "openai/gpt-4o",
    ]);
    expect(a).toBeLessThan(b!);
    expect(b).toBeLessThan(rest!);
    await term.sendKeys("Escape");
    await term.waitFor((s) => s.endsWith("\n> "));

    await term.sendText("/model unstar");
    await term.sendKeys("Enter");
    await term.waitFor(`unstarred openai/gpt-4o-mini (saved as your default in ${file})`);
    expect(savedFavorites(box)).toEqual(["openai/gpt-4.1"]);
  });
});
