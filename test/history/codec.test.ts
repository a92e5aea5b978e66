import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IonError } from "../../src/errors.ts";
import {
  type Codec,
  CodecCapacityError,
  defaultCodec,
  loadFallbackCodec,
  MAX_FRAME_CONTENT,
  nativeCodec,
} from "../../src/history/codec.ts";
import { encodeRecord, framesIn, scanRecords } from "../../src/history/frames.ts";
import type { NewEntry } from "../../src/history/schema.ts";
import { CorruptSessionError, SessionStore } from "../../src/history/store.ts";
import {
  assistantText,
  filesWith,
  SUPPORT_DIR,
  userText,
  useTempDirs,
  ZSTD_CLI,
  zstdDecode,
} from "./support/fixtures.ts";

const tempDir = useTempDirs("ion-codec-");
const encoder = new TextEncoder();
const HEADER = { cwd: "/w", provider: "p", model: "m", title: "codecs" };

/** Mixed saves, including one larger than a frame's maximum content (so it spans several frames). */
function saves(): NewEntry[][] {
  let noise = "";
  while (noise.length < MAX_FRAME_CONTENT * 2.5) noise += `${Math.random().toString(36)} `;
  return [
    [userText("héllo → wörld ✓"), assistantText("hi", { input: 3, output: 1 })],
    [
      {
        type: "message",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t", content: noise, is_error: false }],
        },
      },
    ],
    ...Array.from({ length: 40 }, (_, i) => [userText(`small ${i}`)]),
  ];
}

async function writeWith(codec: Codec, dir: string): Promise<{ id: string; lines: string }> {
  const store = new SessionStore(dir, { codec });
  const writer = await store.create(HEADER);
  for (const save of saves()) await writer.append(save);
  await writer.close();
  return { id: writer.id, lines: zstdDecode(writer.path) };
}

describe("codecs", () => {
  test("the default codec is native; the fallback is zstd-codec", async () => {
    expect(await defaultCodec()).toBe(nativeCodec);
    expect(nativeCodec.name).toBe("native");
    expect((await loadFallbackCodec()).name).toBe("zstd-codec");
    expect(await loadFallbackCodec()).toBe(await loadFallbackCodec());
  });

  test("each codec reads the other's files, both ways, and zstd -dc decodes both", async () => {
    const fallback = await loadFallbackCodec();
    for (const [writerCodec, readerCodec] of [
      [nativeCodec, fallback],
      [fallback, nativeCodec],
    ] as const) {
      const dir = tempDir();
      const { id, lines } = await writeWith(writerCodec, dir);
      const decoded = lines.split("\n");
      expect(decoded).toHaveLength(1 + 43 + 1); // header, entries, the final ""
      expect(JSON.parse(decoded[0]!)).toMatchObject({ type: "session", id });

      const reader = new SessionStore(dir, { codec: readerCodec });
      const loaded = await reader.load(id);
      expect(loaded.warnings).toEqual([]);
      expect(loaded.entries).toEqual(decoded.slice(1, -1).map((line) => JSON.parse(line)));
      // The large save is one record of several frames.
      const bytes = new Uint8Array(readFileSync(reader.pathOf(id)));
      const record = scanRecords(bytes).records[2]!;
      expect(framesIn(bytes, record.frameStart, record.end).length).toBeGreaterThan(2);

      // The reader's codec appends (repacking the small records) and the writer's codec reads that.
      const { writer } = await reader.openForAppend(id);
      await writer.append([userText(`appended by ${readerCodec.name}`)]);
      await writer.close();
      const back = await new SessionStore(dir, { codec: writerCodec }).load(id);
      expect(back.entries).toHaveLength(44);
      expect(zstdDecode(reader.pathOf(id)).split("\n").slice(0, -2)).toEqual(decoded.slice(0, -1));
    }
  });

  test.skipIf(!ZSTD_CLI)(
    "the fallback decodes frames from the zstd CLI, with and without a declared size",
    async () => {
      const fallback = await loadFallbackCodec();
      const text = "line one\nline two\n".repeat(1000);
      const piped = Bun.spawnSync(["zstd", "-c", "-q"], { stdin: encoder.encode(text) });
      const file = join(tempDir(), "in.txt");
      writeFileSync(file, text);
      const sized = Bun.spawnSync(["zstd", "-c", "-q", file]);
      for (const frame of [piped.stdout, sized.stdout]) {
        expect(Buffer.from(fallback.decompress(new Uint8Array(frame))).toString()).toBe(text);
      }
      expect(Buffer.from(fallback.decompress(Buffer.concat([sized.stdout, piped.stdout]))).toString()).toBe(
        text + text,
      );
      expect(() => fallback.decompress(encoder.encode("nope"))).toThrow();
    },
  );

  test("a frame too large for the fallback is refused cleanly, and the file is not called corrupt", async () => {
    const fallback = await loadFallbackCodec();
    expect(() => fallback.compress(new Uint8Array(5 << 20))).toThrow(CodecCapacityError);
    const dir = tempDir();
    const native = new SessionStore(dir, { codec: nativeCodec });
    const writer = await native.create(HEADER);
    await writer.close();
    // A 6 MB save written as one frame, as another zstd writer might.
    const huge = JSON.stringify({ ...userText("z".repeat(6 << 20)), n: 0, at: "t" });
    writeFileSync(
      writer.path,
      Buffer.concat([
        readFileSync(writer.path),
        encodeRecord(Bun.zstdCompressSync(encoder.encode(`${huge}\n`))),
      ]),
    );
    const size = statSync(writer.path).size;
    const err = await new SessionStore(dir, { codec: fallback }).load(writer.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IonError);
    expect(err).not.toBeInstanceOf(CorruptSessionError);
    expect((err as IonError).message).toContain("too large for the zstd-codec fallback");
    expect(statSync(writer.path).size).toBe(size);
    expect(filesWith(dir, "corrupt")).toEqual([]);
    expect((await native.load(writer.id)).entries).toHaveLength(1);
  });

  test("zstd-codec is only loaded when needed", async () => {
    const run = Bun.spawnSync([process.execPath, join(SUPPORT_DIR, "codec-probe.ts"), tempDir()]);
    expect(run.stderr.toString()).toBe("");
    expect(JSON.parse(run.stdout.toString())).toEqual({
      codec: "native",
      entries: 1,
      zstdCodecLoaded: false,
    });
  });
});
