/**
 * Gives the caller's stdin/stdout/stderr back as ion found them (SPEC §12). Bun's writer for
 * process.stdout/stderr dups the fd and sets O_NONBLOCK on the dup — and the flag lives on the open
 * file description the shell shares with the next command, so after `ion … | …` a plain blocking
 * writer in the same pipeline (GNU `time -v`, `head -c`) can fail with EAGAIN. Node has no fcntl, so
 * this is two libc calls through bun:ffi (~0.3 ms): `rememberStdioModes()` before a command first
 * touches the streams, `restoreStdioModes()` on the way out.
 *
 * Only where calling the variadic `fcntl` through a fixed three-int signature is the platform's calling
 * convention: Linux (x64, arm64) and macOS on x64. On macOS arm64 variadic arguments go on the stack, so
 * such a call would set garbage flags — there ion leaves the fds alone. Windows has no such flag.
 */
import type { Library } from "bun:ffi";
import { libcName } from "./libc.ts";

const F_GETFD = 1;
const FD_CLOEXEC = 1;
const F_GETFL = 3;
const F_SETFL = 4;
const STDIO = [0, 1, 2] as const;

type Fcntl = Library<{ fcntl: { args: ["i32", "i32", "i32"]; returns: "i32" } }>;

let library: Fcntl | undefined;
/** Per fd: its O_NONBLOCK bit when remembered, or undefined when it could not be read (closed fd). */
let remembered: (number | undefined)[] | undefined;
/** Per fd: close-on-exec at start, so not inherited: the caller closed it and the runtime put /dev/null there. */
let closedAtStart: boolean[] = [];

function platform(): { libc: string; nonblock: number } | undefined {
  const libc = libcName();
  if (!libc) return undefined;
  if (process.platform === "linux" && (process.arch === "x64" || process.arch === "arm64"))
    return { libc, nonblock: 0o4000 };
  if (process.platform === "darwin" && process.arch === "x64") return { libc, nonblock: 0x4 };
  return undefined;
}

async function open(libc: string): Promise<Fcntl | undefined> {
  const { dlopen } = await import("bun:ffi");
  try {
    return dlopen(libc, { fcntl: { args: ["i32", "i32", "i32"], returns: "i32" } }) as Fcntl;
  } catch {
    // A libc under another name (a musl system): the modes cannot be read, so there is nothing to restore.
    return undefined;
  }
}

/** Notes whether each of fds 0–2 is non-blocking now, before ion's own streams change that. */
export async function rememberStdioModes(): Promise<void> {
  const target = platform();
  if (!target) return;
  library ??= await open(target.libc);
  if (!library) return;
  const { fcntl } = library.symbols;
  // An fd inherited through exec never has close-on-exec set; Bun opens /dev/null (O_CLOEXEC) on a closed one.
  closedAtStart = STDIO.map((fd) => {
    const fdFlags = fcntl(fd, F_GETFD, 0);
    return fdFlags >= 0 && (fdFlags & FD_CLOEXEC) !== 0;
  });
  remembered = STDIO.map((fd) => {
    const flags = fcntl(fd, F_GETFL, 0);
    return flags < 0 ? undefined : flags & target.nonblock;
  });
}

/**
 * Whether the caller started ion with `fd` closed (`ion run … >&-`): writes to it would vanish into
 * /dev/null. False where the modes cannot be read (see above).
 */
export function closedByCaller(fd: 0 | 1 | 2): boolean {
  return closedAtStart[fd] === true;
}

/** Puts each remembered fd's O_NONBLOCK bit back as it was. Synchronous: it runs right before exit. */
export function restoreStdioModes(): void {
  const target = platform();
  if (!target || !library || !remembered) return;
  const { fcntl } = library.symbols;
  for (const fd of STDIO) {
    const before = remembered[fd];
    if (before === undefined) continue;
    const flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || (flags & target.nonblock) === before) continue;
    fcntl(fd, F_SETFL, (flags & ~target.nonblock) | before);
  }
}
