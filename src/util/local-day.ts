import { dlopen, ptr } from "bun:ffi";

/**
 * A day in local time as `YYYY-MM-DD`, without JavaScript's local-time machinery: the first
 * local-time call of a process (`getFullYear`, `getTimezoneOffset`, `toString` …) makes the engine
 * load the time zone through ICU, ~4 ms of a 2-core machine's start-up, where libc's `localtime_r`
 * reads the same `TZ` / `/etc/localtime` in microseconds. Where libc is not at hand (Windows, a musl
 * system) the Date methods answer, at their cost.
 *
 *   localDay(now) → "2025-01-02"
 */

/** glibc's and the BSDs' `struct tm` starts with nine ints: sec, min, hour, mday, mon, year (−1900) … */
const TM_MDAY = 3;
const TM_MON = 4;
const TM_YEAR = 5;

type LocalTime = (epochSeconds: number) => { year: number; month: number; day: number } | undefined;

let libcLocalTime: LocalTime | null | undefined;

function libcName(): string | undefined {
  if (process.platform === "linux") return "libc.so.6";
  if (process.platform === "darwin") return "/usr/lib/libSystem.B.dylib";
  return undefined;
}

const open = (name: string) => dlopen(name, { localtime_r: { args: ["ptr", "ptr"], returns: "ptr" } });

function openLocalTime(): LocalTime | null {
  const name = libcName();
  if (!name) return null;
  let lib: ReturnType<typeof open>;
  try {
    lib = open(name);
  } catch {
    return null; // no such libc here (musl): the Date methods answer instead
  }
  const time = new BigInt64Array(1);
  // struct tm is 56 bytes on 64-bit glibc and macOS; room to spare.
  const tm = new Int32Array(32);
  return (epochSeconds) => {
    time[0] = BigInt(epochSeconds);
    if (!lib.symbols.localtime_r(ptr(time), ptr(tm))) return undefined;
    return { year: tm[TM_YEAR]! + 1900, month: tm[TM_MON]! + 1, day: tm[TM_MDAY]! };
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

export function localDay(now: Date): string {
  if (libcLocalTime === undefined) libcLocalTime = openLocalTime();
  const time = now.getTime();
  const parts = Number.isFinite(time) ? libcLocalTime?.(Math.floor(time / 1000)) : undefined;
  if (parts) return `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
