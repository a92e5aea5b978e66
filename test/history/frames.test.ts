import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  contentSizeOf,
  crc32,
  encodeRecord,
  FrameError,
  MARKER_MAGIC,
  MARKER_SIZE,
  rawFrame,
  scanRecords,
  zstdContentSize,
  zstdFrameEnd,
} from "../../src/history/frames.ts";
import { useTempDirs, ZSTD_CLI, zstdDecode } from "./support/fixtures.ts";

const tempDir = useTempDirs("ion-frames-");
const encoder = new TextEncoder();
const frame = (text: string) => Bun.zstdCompressSync(encoder.encode(text));
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** A frame made by the zstd CLI (content checksum on, several blocks for a large input). */
function cliFrame(text: string): Uint8Array {
  const out = Bun.spawnSync(["zstd", "-c", "-q", "--check"], { stdin: encoder.encode(text) });
  expect(out.exitCode).toBe(0);
  return new Uint8Array(out.stdout);
}

/** Text that compresses poorly, so a frame has several blocks. */
function noisyText(bytes: number): string {
  let out = "";
  while (out.length < bytes) out += `${Math.random().toString(36).slice(2)}\n`;
  return out;
}

function skippable(magic: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, magic, true);
  view.setUint32(4, payload.length, true);
  out.set(payload, 8);
  return out;
}

describe("records", () => {
  test("a record is a 16-byte skippable marker (magic, size 8, frame length, CRC-32) then the frame", () => {
    const data = frame('{"a":1}\n');
    const record = encodeRecord(data);
    const view = new DataView(record.buffer);
    expect(record.length).toBe(MARKER_SIZE + data.length);
    expect(view.getUint32(0, true)).toBe(0x184d2a5e);
    expect(MARKER_MAGIC).toBe(0x184d2a5e);
    expect(view.getUint32(4, true)).toBe(8);
    expect(view.getUint32(8, true)).toBe(data.length);
    expect(view.getUint32(12, true)).toBe(crc32(data));
    expect(record.subarray(MARKER_SIZE)).toEqual(data);
    // CRC-32 as zlib computes it.
    expect(crc32(encoder.encode("123456789"))).toBe(0xcbf43926);
  });

  test("zstd -dc skips the markers and decodes the records to the concatenated lines", () => {
    const path = join(tempDir(), "f.jsonl.zst");
    writeFileSync(path, concat(encodeRecord(frame('{"a":1}\n')), encodeRecord(frame('{"b":2}\n{"c":3}\n'))));
    expect(zstdDecode(path)).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
  });

  test("the scanner finds each record and where the file is whole", () => {
    const a = encodeRecord(frame("one\n"));
    const b = encodeRecord(frame("two\n"));
    const scan = scanRecords(concat(a, b));
    expect(scan.tail).toBeUndefined();
    expect(scan.validEnd).toBe(a.length + b.length);
    expect(scan.records).toEqual([
      { start: 0, frameStart: MARKER_SIZE, end: a.length, kind: "marked" },
      { start: a.length, frameStart: a.length + MARKER_SIZE, end: a.length + b.length, kind: "marked" },
    ]);
  });
});

describe("torn tails", () => {
  const first = encodeRecord(frame('{"type":"session"}\n'));
  const second = encodeRecord(frame('{"n":0}\n'));
  const last = encodeRecord(frame(`${"y".repeat(300)}\n`));
  const whole = concat(first, second, last);
  const validEnd = first.length + second.length;

  test("a last record cut at any byte is a torn tail; everything before it is kept", () => {
    for (let cut = validEnd + 1; cut < whole.length; cut++) {
      const scan = scanRecords(whole.subarray(0, cut));
      expect(scan.validEnd).toBe(validEnd);
      expect(scan.records).toHaveLength(2);
      expect(scan.tail).toMatchObject({ offset: validEnd, bytes: cut - validEnd });
    }
  });

  test("a complete last record with a bad CRC is a torn tail; the same in the middle is corruption", () => {
    const badLast = concat(whole);
    badLast[whole.length - 3]! ^= 0xff;
    expect(scanRecords(badLast).tail).toMatchObject({
      offset: validEnd,
      reason: "checksum mismatch in the last save",
    });
    const badMiddle = concat(whole);
    badMiddle[first.length + MARKER_SIZE + 2]! ^= 0xff;
    expect(() => scanRecords(badMiddle)).toThrow(FrameError);
  });

  test("a record whose length field is damaged is corruption, not a torn tail, when saves follow it", () => {
    const damaged = concat(whole);
    new DataView(damaged.buffer).setUint32(first.length + 8, 0xffffff, true);
    expect(() => scanRecords(damaged)).toThrow("damaged record");
    // The same damage in the last record cannot be told from a crash: it is dropped as torn.
    const lastDamaged = concat(whole);
    new DataView(lastDamaged.buffer).setUint32(validEnd + 8, 0xffffff, true);
    expect(scanRecords(lastDamaged).tail).toMatchObject({ offset: validEnd, reason: "cut-off frame" });
  });

  test("a zero-filled tail is torn; other trailing bytes are corruption", () => {
    expect(scanRecords(concat(whole, new Uint8Array(4096))).tail).toMatchObject({
      offset: whole.length,
      reason: "zero-filled tail",
    });
    expect(() => scanRecords(concat(whole, encoder.encode("garbage!")))).toThrow("unknown data");
  });

  test("an empty file, a foreign file and a cut first record are corrupt, not torn", () => {
    expect(() => scanRecords(new Uint8Array(0))).toThrow("empty file");
    expect(() => scanRecords(encoder.encode("this is not zstd at all"))).toThrow("bad magic");
    for (const cut of [1, 3, 10, MARKER_SIZE, first.length - 1]) {
      expect(() => scanRecords(first.subarray(0, cut))).toThrow("first record is incomplete");
    }
  });
});

describe("frames ion did not write", () => {
  test.skipIf(!ZSTD_CLI)(
    "other skippable frames are skipped and bare zstd frames (from the CLI) are walked",
    () => {
      const text = noisyText(400_000);
      const bare = cliFrame(text);
      const file = concat(encodeRecord(frame("head\n")), skippable(0x184d2a50, encoder.encode("meta")), bare);
      const scan = scanRecords(file);
      expect(scan.tail).toBeUndefined();
      expect(scan.records.map((r) => r.kind)).toEqual(["marked", "skippable", "bare"]);
      expect(scan.validEnd).toBe(file.length);
      const path = join(tempDir(), "mixed.zst");
      writeFileSync(path, file);
      expect(zstdDecode(path)).toBe(`head\n${text}`);
    },
  );

  test.skipIf(!ZSTD_CLI)(
    "the frame walker finds the end of multi-block frames with a checksum, and a cut frame is torn",
    () => {
      const text = noisyText(600_000);
      const bare = cliFrame(text);
      expect(zstdFrameEnd(bare, 0)).toBe(bare.length);
      expect(zstdFrameEnd(concat(bare, bare), bare.length)).toBe(2 * bare.length);
      for (const cut of [5, 20, bare.length >> 1, bare.length - 4, bare.length - 1]) {
        expect(zstdFrameEnd(bare.subarray(0, cut), 0)).toBe("truncated");
      }
      const head = encodeRecord(frame("head\n"));
      const torn = scanRecords(concat(head, bare.subarray(0, bare.length - 2)));
      expect(torn.tail).toMatchObject({ offset: head.length, reason: "cut-off frame" });
      // Native frames too.
      const native = frame(text);
      expect(zstdFrameEnd(native, 0)).toBe(native.length);
    },
  );

  test.skipIf(!ZSTD_CLI)("a frame's declared content size is read for every size field width", () => {
    for (const size of [0, 1, 200, 255, 256, 300, 70_000, 2_000_000]) {
      const native = frame("z".repeat(size));
      expect(zstdContentSize(native, 0)).toBe(size);
      expect(contentSizeOf(native, 0, native.length)).toBe(size);
    }
    const file = join(tempDir(), "hello.txt");
    writeFileSync(file, "hello\n");
    const fromFile = Bun.spawnSync(["zstd", "-c", "-q", file]);
    expect(zstdContentSize(new Uint8Array(fromFile.stdout), 0)).toBe(6);
    // A frame streamed from a pipe does not declare its size.
    expect(zstdContentSize(cliFrame("hello\n"), 0)).toBeUndefined();
  });
});

describe("rawFrame: a save stored, not compressed", () => {
  test("a standard zstd frame of raw blocks, at every size around the 128 KiB block limit", () => {
    for (const size of [0, 1, 1000, 128 * 1024 - 1, 128 * 1024, 128 * 1024 + 1, 300_000]) {
      const data = new Uint8Array(size).map((_, i) => 32 + (i % 90));
      const frame = rawFrame(data);
      expect(zstdFrameEnd(frame, 0)).toBe(frame.length);
      expect(zstdContentSize(frame, 0)).toBe(size);
      expect(Buffer.from(Bun.zstdDecompressSync(frame)).equals(Buffer.from(data))).toBe(true);
      if (ZSTD_CLI) {
        const cli = Bun.spawnSync([ZSTD_CLI, "-dc"], { stdin: frame });
        expect(cli.exitCode).toBe(0);
        expect(Buffer.from(cli.stdout).equals(Buffer.from(data))).toBe(true);
      }
    }
  });
});
