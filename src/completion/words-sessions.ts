import { closeSync, openSync, readSync } from "node:fs";
import { dataDir } from "../config/paths.ts";
import { defaultCodec } from "../history/codec.ts";
import { rawHeader } from "../history/decode.ts";
import { SessionStore } from "../history/store.ts";
import { MAX_SESSIONS, type Word } from "./words.ts";

/** Enough of a file for its first record (the header) in all but freak cases. */
const HEAD_BYTES = 16 * 1024;

/**
 * Session ids that start with `prefix`, newest first (ids sort by creation time), each with its
 * title from the file's first record; at most MAX_SESSIONS files are read.
 */
export async function sessionWords(prefix: string, env: Record<string, string | undefined>): Promise<Word[]> {
  const store = SessionStore.forDataDir(dataDir(env));
  const ids = (await store.ids()).filter((id) => id.startsWith(prefix));
  ids.sort().reverse();
  const codec = await defaultCodec();
  return ids
    .slice(0, MAX_SESSIONS)
    .map((id) => ({ value: id, description: titleOf(store.pathOf(id), codec) }));
}

function titleOf(path: string, codec: Awaited<ReturnType<typeof defaultCodec>>): string {
  const head = readHead(path);
  if (!head) return "";
  const header = rawHeader(head, codec);
  const title = typeof header === "object" && header !== null ? Reflect.get(header, "title") : undefined;
  return typeof title === "string" ? title : "";
}

/** The file's first bytes; undefined when it is gone or unreadable (its id is still worth offering). */
function readHead(path: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if (err instanceof Error && "code" in err) return undefined; // removed meanwhile, or not ours to read
    throw err;
  }
  try {
    const buffer = new Uint8Array(HEAD_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}
