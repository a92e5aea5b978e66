/**
 * Lock-test child: opens session `<id>` in `<dir>` for appending and holds it, printing
 * `holding <pid>`, until its stdin ends; then closes it and prints `released`. If the session cannot
 * be opened it prints `refused <message>` and exits 3.
 */
import { IonError } from "../../../src/errors.ts";
import { SessionStore } from "../../../src/history/store.ts";

const [dir, id] = process.argv.slice(2);
if (!dir || !id) throw new Error("usage: hold-session.ts <dir> <id>");

const store = new SessionStore(dir);
let opened: Awaited<ReturnType<SessionStore["openForAppend"]>>;
try {
  opened = await store.openForAppend(id);
} catch (err) {
  if (!(err instanceof IonError)) throw err;
  process.stdout.write(`refused ${err.message}\n`);
  process.exit(3);
}
process.stdout.write(`holding ${process.pid}\n`);
for await (const _ of Bun.stdin.stream()) {
  // wait for stdin to end
}
await opened.writer.close();
process.stdout.write("released\n");
