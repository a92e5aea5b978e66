/**
 * Crash-test child: creates a session in the directory given as the first argument and saves turns
 * in a tight loop, printing `created <id>` once and `saved <k>` after each save of turn k resolved.
 * `--reopen-every N` closes and reopens the session every N turns (which repacks its records).
 * The parent kills it with SIGKILL at a random instant.
 */
import type { NewEntry } from "../../../src/history/schema.ts";
import { SessionStore } from "../../../src/history/store.ts";

const [dir, flag, every] = process.argv.slice(2);
if (!dir) throw new Error("usage: append-loop.ts <dir> [--reopen-every N]");
const reopenEvery = flag === "--reopen-every" ? Number(every) : 0;

/** Turn k: a prompt, a tool call and its result; the payload size varies so writes vary in length. */
function turnEntries(k: number): NewEntry[] {
  const payload = "x".repeat(Math.floor(Math.random() * 20_000)) + Math.random().toString(36);
  return [
    { type: "message", message: { role: "user", content: [{ type: "text", text: `turn ${k}` }] } },
    {
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "tool_use", id: `call-${k}`, name: "bash", input: { k } }],
      },
      stop_reason: "tool_use",
    },
    {
      type: "message",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `call-${k}`, content: payload, is_error: false }],
      },
    },
  ];
}

const store = new SessionStore(dir);
let writer = await store.create({ cwd: "/crash", provider: "test", model: "test", title: "crash test" });
const id = writer.id;
process.stdout.write(`created ${id}\n`);
for (let k = 1; ; k++) {
  if (reopenEvery > 0 && k % reopenEvery === 0) {
    await writer.close();
    writer = (await store.openForAppend(id)).writer;
  }
  await writer.append(turnEntries(k));
  process.stdout.write(`saved ${k}\n`);
}
