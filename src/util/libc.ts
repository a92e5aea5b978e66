import type { dlopen } from "bun:ffi";

/**
 * A few libc calls through bun:ffi, for what the runtime only offers at a start-up cost: the local
 * date without loading ICU's time zones (local-day.ts, ~4 ms), whether a descriptor is a terminal
 * without node:tty (~3 ms). Opened once, on first use. Undefined where there is no such libc
 * (Windows, a musl system): callers then take the runtime's way.
 *
 * Only calls with fixed arguments are declared here (no variadic ones), so the calling convention is
 * right on every platform.
 */

const SYMBOLS = {
  localtime_r: { args: ["ptr", "ptr"], returns: "ptr" },
  isatty: { args: ["i32"], returns: "i32" },
} as const;

type Libc = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

let opened: Libc | null | undefined;

/** The C library's file on this platform; undefined where ion does not call it (Windows). */
export function libcName(): string | undefined {
  if (process.platform === "linux") return "libc.so.6";
  if (process.platform === "darwin") return "/usr/lib/libSystem.B.dylib";
  return undefined;
}

export function libc(): Libc | undefined {
  if (opened === undefined) {
    const name = libcName();
    try {
      // bun:ffi loads on first use: every command imports this module (through fd-modes.ts), few call libc.
      const ffi = require("bun:ffi") as typeof import("bun:ffi");
      opened = name ? ffi.dlopen(name, SYMBOLS).symbols : null;
    } catch {
      opened = null; // no such libc here (musl): callers use the runtime instead
    }
  }
  return opened ?? undefined;
}

/** Whether `fd` is a terminal: libc's isatty, else node:tty's. */
export function isTerminal(fd: number): boolean {
  const symbols = libc();
  if (symbols) return symbols.isatty(fd) === 1;
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}
