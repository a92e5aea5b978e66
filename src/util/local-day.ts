import { ptr } from "bun:ffi";
import { libc } from "./libc.ts";

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

const time = new BigInt64Array(1);
// struct tm is 56 bytes on 64-bit glibc and macOS; room to spare.
const tm = new Int32Array(32);

function libcLocalTime(epochSeconds: number): { year: number; month: number; day: number } | undefined {
  const symbols = libc();
  if (!symbols) return undefined;
  time[0] = BigInt(epochSeconds);
  if (!symbols.localtime_r(ptr(time), ptr(tm))) return undefined;
  return { year: tm[TM_YEAR]! + 1900, month: tm[TM_MON]! + 1, day: tm[TM_MDAY]! };
}

const pad = (n: number) => String(n).padStart(2, "0");

export function localDay(now: Date): string {
  const ms = now.getTime();
  const parts = Number.isFinite(ms) ? libcLocalTime(Math.floor(ms / 1000)) : undefined;
  if (parts) return `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
