/**
 * Crash-test child: creates a session in the directory given as the first argument and saves turns
 * in a tight loop, printing `created <id>` once and `saved <k>` after each save of turn k resolved
 * (synced on even turns, a sync left running on some odd ones, none on the rest).
 * `--reopen-every N` closes and reopens the session every N turns (which repacks its records);
 * `--big` makes each save about a megabyte, so that kills land in the middle of writes too.
 * The parent kills it with SIGKILL at a random instant.
 */
import type { NewEntry } from "../../../src/history/schema.ts";
import { SessionStore } from "../../../src/history/store.ts";

const [dir, ...flags] = process.argv.slice(2);
if (!dir) throw new Error("usage: append-loop.ts <dir> [--reopen-every N] [--big]");
const reopenAt = flags.indexOf("--reopen-every");
const reopenEvery = reopenAt >= 0 ? Number(flags[reopenAt + 1]) : 0;
/** Saves of about a megabyte of incompressible text: each write takes long enough to be cut by the kill. */
const big = flags.includes("--big");

/** Turn k: a prompt, a tool call and its result; the payload size varies so writes vary in length. */
function turnEntries(k: number): NewEntry[] {
  const payload = big
    ? Buffer.from(
        crypto.getRandomValues(new Uint8Array(400_000 + Math.floor(Math.random() * 800_000))),
      ).toString("base64")
    : "x".repeat(Math.floor(Math.random() * 20_000)) + Math.random().toString(36);
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
  // A written save must survive the kill whether or not its sync has finished (or even begun).
  if (k % 2 === 0) await writer.sync();
  else if (k % 3 === 0) writer.sync().catch(() => undefined);
  process.stdout.write(`saved ${k}\n`);
}
