/**
 * Codec-test child: saves and loads a session in `<dir>` with the store's default codec, then prints
 * which codec that was and whether the zstd-codec package was loaded at all (it must not be, unless needed).
 */
import { defaultCodec } from "../../../src/history/codec.ts";
import { SessionStore } from "../../../src/history/store.ts";

const [dir] = process.argv.slice(2);
if (!dir) throw new Error("usage: codec-probe.ts <dir>");
const store = new SessionStore(dir);
const writer = await store.create({ cwd: "/probe", provider: "p", model: "m", title: "probe" });
await writer.append([
  { type: "message", message: { role: "user", content: [{ type: "text", text: "hi" }] } },
]);
await writer.close();
const loaded = await store.load(writer.id);
const zstdCodecLoaded = Object.keys(require.cache).some((path) => path.includes("zstd-codec"));
console.log(
  JSON.stringify({ codec: (await defaultCodec()).name, entries: loaded.entries.length, zstdCodecLoaded }),
);
