import { FrameError, framesIn, zstdContentSize } from "./frames.ts";

/**
 * zstd for session files. Bun's built-in zstd is the default; the `zstd-codec` package (zstd compiled
 * to WebAssembly by Emscripten) is the fallback for a runtime without it, imported only when needed.
 * Both write standard zstd frames with their content size, so either reads the other's files, and so
 * does the `zstd` CLI.
 */

export interface Codec {
  name: "native" | "zstd-codec";
  /** One standard zstd frame holding `data`, with its content size. */
  compress(data: Uint8Array): Uint8Array;
  /** The concatenated contents of one or more zstd frames; skippable frames are ignored. Throws on bad input. */
  decompress(data: Uint8Array): Uint8Array;
  /** `decompress` off the main thread, when the codec can: the store overlaps it with parsing. */
  decompressAsync?(data: Uint8Array): Promise<Uint8Array>;
}

/** zstd's default level: small session saves gain little from more, and it keeps appends fast. */
export const COMPRESSION_LEVEL = 3;

/**
 * The largest input the store gives `compress` in one call: bigger saves become several frames. It
 * keeps every frame ion writes within what the fallback's fixed 16 MB WebAssembly heap can hold.
 */
export const MAX_FRAME_CONTENT = 1 << 20;

/** zstd-codec's heap is 16 MB and cannot grow; larger frames would abort the process, so they are refused. */
const FALLBACK_MAX_CONTENT = 4 << 20;

/** A frame too large for the zstd-codec fallback: the file is fine, this runtime cannot read it. */
export class CodecCapacityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CodecCapacityError";
  }
}

export const nativeCodec: Codec = {
  name: "native",
  compress: (data) => Bun.zstdCompressSync(data, { level: COMPRESSION_LEVEL }),
  decompress: (data) => Bun.zstdDecompressSync(data),
  decompressAsync: (data) => Bun.zstdDecompress(data),
};

/** The slice of zstd-codec's API used here (the package ships no types; its shape is checked at load). */
interface ZstdCodecApi {
  Simple: new () => {
    compress(data: Uint8Array, level?: number): Uint8Array | null;
    decompress(data: Uint8Array): Uint8Array | null;
  };
  Streaming: new () => { decompress(data: Uint8Array, sizeHint?: number): Uint8Array | null };
}
interface ZstdCodecModule {
  ZstdCodec: { run(onReady: (api: ZstdCodecApi) => void): void };
}

let fallback: Promise<Codec> | undefined;

/** The zstd-codec codec. Its Emscripten runtime starts asynchronously, once per process. */
export function loadFallbackCodec(): Promise<Codec> {
  fallback ??= startFallback();
  return fallback;
}

async function startFallback(): Promise<Codec> {
  // @ts-expect-error zstd-codec ships no type declarations; isZstdCodecModule checks the shape instead.
  const mod: unknown = await import("zstd-codec");
  if (!isZstdCodecModule(mod)) throw new Error("zstd-codec: unexpected module shape");
  const api = await new Promise<ZstdCodecApi>((resolve) => mod.ZstdCodec.run(resolve));
  const simple = new api.Simple();
  const streaming = new api.Streaming();

  /** One zstd frame. zstd-codec's one-shot decoder needs the content size; without one, stream it. */
  const decompressFrame = (frame: Uint8Array): Uint8Array => {
    const size = zstdContentSize(frame, 0);
    if (size === 0) return new Uint8Array(0);
    if (size !== undefined && size > FALLBACK_MAX_CONTENT) {
      throw new CodecCapacityError(
        `a ${(size / 2 ** 20).toFixed(1)} MB zstd frame is too large for the zstd-codec fallback`,
      );
    }
    const out = size === undefined ? streaming.decompress(frame) : simple.decompress(frame);
    if (!out) throw new Error("zstd-codec could not decompress a frame");
    return out;
  };

  return {
    name: "zstd-codec",
    compress(data) {
      if (data.length > FALLBACK_MAX_CONTENT) {
        throw new CodecCapacityError(`${data.length} bytes are too many for one zstd-codec frame`);
      }
      const out = simple.compress(data, COMPRESSION_LEVEL);
      if (!out) throw new Error("zstd-codec could not compress the data");
      return out;
    },
    decompress(data) {
      // zstd-codec decodes one frame per call (and its streaming decoder is slow on many frames).
      let frames: { start: number; end: number; skippable: boolean }[];
      try {
        frames = framesIn(data, 0, data.length);
      } catch (err) {
        if (err instanceof FrameError) throw new Error(`not zstd data: ${err.message}`);
        throw err;
      }
      const parts: Uint8Array[] = [];
      for (const frame of frames) {
        if (!frame.skippable) parts.push(decompressFrame(data.subarray(frame.start, frame.end)));
      }
      return parts.length === 1 ? parts[0]! : concat(parts);
    },
  };
}

function isZstdCodecModule(mod: unknown): mod is ZstdCodecModule {
  if (typeof mod !== "object" || mod === null) return false;
  const codec: unknown = Reflect.get(mod, "ZstdCodec");
  return typeof codec === "object" && codec !== null && typeof Reflect.get(codec, "run") === "function";
}

/** Native zstd when this Bun has it, else the zstd-codec fallback. */
export async function defaultCodec(): Promise<Codec> {
  return typeof Bun.zstdCompressSync === "function" && typeof Bun.zstdDecompressSync === "function"
    ? nativeCodec
    : loadFallbackCodec();
}

/** `data` compressed as frames of at most MAX_FRAME_CONTENT bytes of content each, concatenated. */
export function compressFrames(codec: Codec, data: Uint8Array): Uint8Array {
  if (data.length <= MAX_FRAME_CONTENT) return codec.compress(data);
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < data.length; offset += MAX_FRAME_CONTENT) {
    parts.push(codec.compress(data.subarray(offset, offset + MAX_FRAME_CONTENT)));
  }
  return concat(parts);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
