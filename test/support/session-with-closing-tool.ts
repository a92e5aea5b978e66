/**
 * A process for the close-on-signal test: an agent session (config and data in `dir`, the OpenAI wire
 * at `url`) with a tool that holds a resource — its `close()` writes `dir/closed` — run as `ion run`
 * runs a turn: the ending signals cancel it, and the session is closed whatever happened.
 * `dir/started` appears once the model's call to the tool is running.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession } from "../../src/agent/session.ts";
import { cancelOnSignals } from "../../src/commands/run-support.ts";

const [dir, url] = process.argv.slice(2);
if (!dir || !url) throw new Error("usage: session-with-closing-tool.ts DIR URL");

const session = await AgentSession.open({
  cwd: dir,
  env: {
    HOME: dir,
    ION_CONFIG_DIR: join(dir, "config"),
    ION_DATA_DIR: join(dir, "data"),
    XDG_CACHE_HOME: join(dir, "cache"),
    OPENAI_BASE_URL: `${url}/v1`,
    OPENAI_API_KEY: "test-key-closing-tool",
  },
  model: "openai/gpt-4o-mini",
  yes: true,
  noTools: false,
  maxTurns: 5,
  newId: Bun.randomUUIDv7(),
  choice: { continueLatest: false, resume: undefined, noSession: false },
  notice: (line) => process.stderr.write(`${line}\n`),
});
session.registry.add({
  spec: { name: "watch", description: "waits until cancelled", input_schema: { type: "object" } },
  readOnly: true,
  execute: (_input, ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener("abort", () => resolve({ content: "cancelled", is_error: true }));
      writeFileSync(join(dir, "started"), ctx.callId);
    }),
  close: async () => writeFileSync(join(dir, "closed"), "closed"),
});

const controller = new AbortController();
const release = cancelOnSignals(controller);
try {
  for await (const event of session.turn([{ type: "text", text: "watch" }], controller.signal))
    if (event.type === "result") writeFileSync(join(dir, "result"), event.result.subtype);
} finally {
  release();
  await session.close();
}
