/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by creation time and
 * a prefix of a few characters is enough to name a memory. Ids made in one process within the same
 * millisecond (or with a clock that stepped back) stay strictly increasing: the 12-bit `rand_a`
 * field is used as a counter from a random start, and the timestamp borrows a millisecond when it
 * overflows.
 */
let lastMs = -1;
let counter = 0;

export function uuid7(at: number = Date.now()): string {
  let ms = Math.max(0, Math.floor(at));
  if (ms <= lastMs) {
    ms = lastMs;
    counter++;
    if (counter > 0xfff) {
      ms++;
      counter = 0;
    }
  } else {
    counter = Math.floor(Math.random() * 0x800); // the lower half, so a burst has room to count up
  }
  lastMs = ms;
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes.subarray(8));
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = (low >>> 24) & 0xff;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = 0x70 | (counter >>> 8); // version 7
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The creation time a UUIDv7 carries, in ms. */
export function uuid7Time(id: string): number {
  return Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
}
