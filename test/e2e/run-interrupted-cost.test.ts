/**
 * End to end: a request cut short before the provider said what it used has an unknown price, never
 * a guessed $0 — the provider read the prompt and may bill it. `ion run -o json` reports null, the
 * session's cost is unknown in `ion sessions list`, and a chat says "cost unknown" for that turn
 * (tmux). A request refused outright (HTTP 4xx) was not billed: its run stays priced.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { z } from "zod";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { errorReply, stallMidStream } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("run-interrupted-cost: tmux is not installed; the terminal test is skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-interrupted-cost-0000000000042", (url) => ({
  ION_MODELS_URL: `${url}/api.json`,
}));
const MODEL = "openai/gpt-4o-mini";
const CostItem = z.object({ id: z.string(), cost_usd: z.number().nullable() });

/** Starts `ion run -o json`, interrupts it once the answer has begun, and returns its result. */
async function interruptedRun(box: Sandbox): Promise<z.infer<typeof ResultSchema>> {
  server.enqueue(stallMidStream("openai", { text: "I will never finish this sentence because" }));
  const before = server.requests.length;
  const child = box.spawn(["run", "-m", MODEL, "-o", "json", "hi"], { env });
  await server.waitForRequests(before + 1, 10_000);
  await Bun.sleep(150); // the first chunks are read: the provider has taken the request
  child.kill("SIGINT");
  const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  expect(code).toBe(2);
  return ResultSchema.parse(JSON.parse(stdout));
}

describe("a request cut short before its usage arrived", () => {
  test("ion run -o json: total_cost_usd and costUSD are null, and the session's cost is unknown", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env);
    const result = await interruptedRun(box);
    expect(result.subtype).toBe("error_interrupted");
    expect(result.usage.input_tokens).toBe(0);
    expect(result.total_cost_usd).toBeNull();
    expect(result.modelUsage[MODEL.split("/")[1]!]?.costUSD).toBeNull();

    const listed = await box.run(["sessions", "list", "--json"], { env });
    expect(listed.code).toBe(0);
    const items = z.array(CostItem).parse(JSON.parse(listed.stdout));
    expect(items.find((i) => i.id === result.session_id)?.cost_usd).toBeNull();
    const table = await box.run(["sessions", "list"], { env });
    expect(table.stdout.trimEnd().split("\n")[1]).toMatch(/ unknown$/);
  });

  test("a request the provider refused (HTTP 400) cost nothing: $0, not unknown", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env);
    server.enqueue(await errorReply("openai", 400));
    const run = await box.run(["run", "-m", MODEL, "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).total_cost_usd).toBe(0);
  });
});

describe.skipIf(!HAS_TMUX)("a chat turn interrupted mid-answer", () => {
  test("its status line says cost unknown, not $0.0000", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env);
    await box.writeConfig({ model: MODEL });
    const term = await Terminal.start({ args: ["chat"], env: box.env(env), cwd: box.workspace, cols: 120 });
    await term.waitFor((s) => s.endsWith("\n> "), 10_000);
    server.enqueue(stallMidStream("openai", { text: "Partial answer that never ends" }));
    await term.sendText("go on");
    await term.sendKeys("Enter");
    await term.waitFor("Partial");
    await term.sendKeys("C-c");
    const screen = await term.waitFor((s) => /^openai\/gpt-4o-mini · .*$/m.test(s) && s.endsWith("\n> "));
    const status = screen.split("\n").find((l) => l.startsWith("openai/gpt-4o-mini · "));
    expect(status).toContain(" · cost unknown · ");
    expect(status).not.toContain("$0.0000");
  });
});
