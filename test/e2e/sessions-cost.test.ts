/**
 * End to end: what a session has cost, over all its runs — `ion sessions list` (COST column and
 * `cost_usd`), `/cost` in a chat that resumed it (tmux), and a chat started before the model list was
 * cached, whose later turns are priced once it is. Waits poll the screen; nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { z } from "zod";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("sessions-cost: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const KEY = "sk-test-sessions-cost-0000000000000555";
const { server, env } = useOpenAIServer(KEY, (url) => ({ ION_MODELS_URL: `${url}/api.json` }));
const MODEL = "openai/gpt-4o-mini";
// gpt-4o-mini in the snapshot: $0.15 in, $0.60 out per 1M tokens → $0.015 + $0.03 a reply.
const USAGE = { input: 100_000, output: 50_000 };
const REPLY_COST = 0.045;

const CostItem = z.object({ id: z.string(), cost_usd: z.number().nullable() });

async function run(box: Sandbox, args: string[]): Promise<z.infer<typeof ResultSchema>> {
  server.enqueueReply("openai", { text: "ok.", usage: USAGE });
  const done = await box.run(["run", "-m", MODEL, "-o", "json", ...args], { env });
  expect(done.code).toBe(0);
  return ResultSchema.parse(JSON.parse(done.stdout));
}

describe("ion sessions list shows what each session cost", () => {
  test("COST and cost_usd sum every run of a session; null when a run's price was unknown", async () => {
    using box = new Sandbox();
    // Run before the catalogue is cached: its price is unknown.
    const unpriced = await run(box, ["an early question"]);
    expect(unpriced.total_cost_usd).toBeNull();
    await warmCatalog(server, box, env);
    const first = await run(box, ["--no-session", "unsaved, so it is in no session"]);
    expect(first.total_cost_usd).toBeCloseTo(REPLY_COST, 9);
    const a = await run(box, ["first of two"]);
    const b = await run(box, ["-r", a.session_id, "second of two"]);
    expect(b.session_id).toBe(a.session_id);

    const listed = await box.run(["sessions", "list", "--json"], { env });
    expect(listed.code).toBe(0);
    const items = z.array(CostItem).parse(JSON.parse(listed.stdout));
    const costOf = (id: string) => items.find((i) => i.id === id)?.cost_usd;
    expect(costOf(a.session_id)).toBeCloseTo(2 * REPLY_COST, 9);
    expect(costOf(unpriced.session_id)).toBeNull();

    const table = await box.run(["sessions", "list"], { env });
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/MESSAGES\s+TOKENS\s+COST$/);
    expect(rows.find((r) => r.includes("first of two"))).toMatch(/ \$0\.0900$/);
    expect(rows.find((r) => r.includes("an early question"))).toMatch(/ unknown$/);
  });
});

describe.skipIf(!HAS_TMUX)("/cost and the price in a chat", () => {
  async function chat(box: Sandbox, args: string[]): Promise<Terminal> {
    await box.writeConfig({ model: MODEL });
    const term = await Terminal.start({ args, env: box.env(env), cwd: box.workspace, cols: 160, rows: 40 });
    await term.waitFor((screen) => screen.endsWith("\n> "), 10_000);
    return term;
  }

  /** The status lines on the screen: `openai/gpt-4o-mini · 12% ctx · $0.0450 · 0.1s`. */
  const statusLines = (screen: string) =>
    screen.split("\n").filter((l) => /^openai\/gpt-4o-mini · .* · \d+\.\ds$/.test(l));

  /** Sends a prompt and waits for its status line and the next prompt; returns the status lines. */
  async function ask(term: Terminal, text: string, turn: number): Promise<string[]> {
    server.enqueueReply("openai", { text: "ok.", usage: USAGE });
    await term.sendText(text);
    await term.sendKeys("Enter");
    const screen = await term.waitFor((s) => statusLines(s).length >= turn && s.endsWith("\n> "), 10_000);
    return statusLines(screen);
  }

  test("after a resume, /cost has the whole session's total as well as this chat's", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env);
    const a = await run(box, ["first"]);
    await run(box, ["-r", a.session_id, "second"]);
    const term = await chat(box, ["chat", "--quiet", "-r", a.session_id]);
    await ask(term, "third", 1);
    await term.sendText("/cost");
    await term.sendKeys("Enter");
    const screen = await term.waitFor(/^this session: .*$/m);
    expect(screen).toMatch(/^this chat: 1 model request · .* · \$0\.0450 · /m);
    expect(screen).toMatch(/^this session: 3 turns · .* · \$0\.1350$/m);
  });

  test("a chat started before the model list was cached prices its turns once it is", async () => {
    using box = new Sandbox();
    const term = await chat(box, ["chat"]);
    const before = await ask(term, "one", 1);
    expect(before[0]).toMatch(/ · cost unknown · /);
    // No turn has a price yet: /cost says so rather than leading with a $0 that was never measured.
    await term.sendText("/cost");
    await term.sendKeys("Enter");
    const unknown = await term.waitFor((s) => /^this session: .*$/m.test(s) && s.endsWith("\n> "));
    expect(unknown).toMatch(/^this chat: 1 model request · .* · cost unknown \(1 turn without a price\) · /m);
    expect(unknown).toMatch(/^this session: 1 turn · .* · cost unknown \(1 turn without a price\)$/m);
    expect(unknown).not.toContain("$0.0000");
    // Another ion fetches the list meanwhile, as `ion models` or a /model picker would.
    await warmCatalog(server, box, env);
    const after = await ask(term, "two", 2);
    expect(after[1]).toMatch(/ · \$0\.0450 · /);
    await term.sendText("/cost");
    await term.sendKeys("Enter");
    const screen = await term.waitFor(/^this chat: 2 model requests .*\n^this session: .*$/m);
    expect(screen).toMatch(/^this chat: 2 model requests · .* · \$0\.0450 \+ 1 turn without a price · /m);
    expect(screen).toMatch(/^this session: 2 turns · .* · ≥?\$0\.0450/m);
  });
});
