import { fstatSync, readFileSync, statSync } from "node:fs";
import { IonError } from "../errors.ts";
import { messageOf } from "../util/error-text.ts";
import { formatTokens } from "../util/numbers.ts";

/**
 * Piped stdin for `ion run`, read so that a signal ends the read at once and so that no more is read
 * than could fit the model's window (`yes | ion run` must not fill memory before being refused).
 */

/** What the read needs to know of the session: its window and its name for the refusal. */
export interface StdinTarget {
  contextWindow: number | undefined;
  provider: { id: string };
  model: string;
}

/**
 * Bytes per token at most by the estimate sessions use (chars/4, chars counted in UTF-16 units, and
 * one such unit is at most 3 bytes of UTF-8): more bytes than window × 12 cannot fit, however the
 * text is made. Below that the text is read whole and the exact estimate refuses or accepts it.
 */
const MAX_BYTES_PER_TOKEN = 12;
/** With the window unknown: more than any model takes (16M tokens of ASCII). */
const UNKNOWN_WINDOW_BYTES = 64 * 2 ** 20;

function stdinLimit(window: number | undefined): number {
  return window === undefined ? UNKNOWN_WINDOW_BYTES : window * MAX_BYTES_PER_TOKEN;
}

function sizeText(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1000)} kB`;
}

function interrupted(): IonError {
  return new IonError("interrupted", "interrupted");
}

/** `promise`, or the interrupted error as soon as `signal` aborts (the read itself is left behind). */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(interrupted());
    const onAbort = () => reject(interrupted());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

function tooLarge(limit: number, target: StdinTarget): IonError {
  const window = target.contextWindow;
  const takes =
    window === undefined ? "" : `; ${target.provider.id}/${target.model} takes ${formatTokens(window)}`;
  return new IonError(
    "usage",
    `stdin holds more than ${sizeText(limit)} of text, over ${formatTokens(limit / MAX_BYTES_PER_TOKEN)} tokens${takes} (the rest was not read)`,
    { hint: "attach less (or a part of it), or pick a model with a larger context window (`ion models`)" },
  );
}

function unreadable(err: unknown): IonError {
  const why = messageOf(err);
  return new IonError("io", `cannot read stdin: ${/director/i.test(why) ? "it is a directory" : why}`);
}

/** Reads all of stdin up to the window's limit; an abort (SIGINT/SIGTERM/SIGHUP) ends it at once. */
async function readStdinBounded(
  target: StdinTarget,
  signal: AbortSignal,
  log?: (line: string) => void,
): Promise<Uint8Array> {
  if (signal.aborted) throw interrupted();
  const limit = stdinLimit(target.contextWindow);
  log?.(`stdin: reading, up to ${sizeText(limit)}`);
  // /dev/null holds nothing; a file cannot block: it is read in one synchronous call (a stream
  // costs ~2 MB and a few ms, Bun.stdin.bytes() ~1 ms), and one over the limit is refused unread.
  // Pipes, FIFOs and devices are streamed.
  const kind = stdinKind();
  if (kind.type === "null") return new Uint8Array(0);
  if (kind.type === "file") {
    if (kind.size > limit) throw tooLarge(limit, target);
    try {
      // Read to the end, not to the size: /proc files say 0 bytes and still hold text.
      return readFileSync(0);
    } catch (err) {
      throw unreadable(err);
    }
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = Bun.stdin.stream().getReader();
  } catch (err) {
    throw unreadable(err);
  }
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await unlessAborted(reader.read(), signal);
    } catch (err) {
      if (err instanceof IonError) throw err;
      throw unreadable(err);
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > limit) {
      // Stop here: the writer gets EPIPE once ion exits, instead of ion holding all of it.
      await reader.cancel();
      throw tooLarge(limit, target);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks, total);
}

type StdinKind = { type: "null" } | { type: "file"; size: number } | { type: "stream" };

/** /dev/null, a regular file (with its size), or anything that may block or never end. */
function stdinKind(): StdinKind {
  try {
    const stdin = fstatSync(0);
    if (stdin.isFile()) return { type: "file", size: stdin.size };
    if (stdin.isCharacterDevice() && stdin.rdev === statSync("/dev/null").rdev) return { type: "null" };
  } catch (err) {
    // No fstat (a closed fd 0, an odd platform): the stream reader says what is wrong, if anything.
    if (!(err instanceof Error)) throw err;
  }
  return { type: "stream" };
}

/** The reader `buildUserContent` calls, bound to this run's session, cancel signal and `-v` log. */
export function stdinReader(
  target: StdinTarget,
  signal: AbortSignal,
  log?: (line: string) => void,
): () => Promise<Uint8Array> {
  return () => readStdinBounded(target, signal, log);
}
