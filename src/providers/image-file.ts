import { imageBlock, MAX_IMAGE_BYTES, sniffImage, tooLargeImage } from "./image.ts";
import type { ImageBlock } from "./types.ts";

/**
 * The image file at `path` as an image block; undefined when its first bytes are not a PNG, JPEG,
 * GIF or WebP image (only those are read). Over MAX_IMAGE_BYTES it is refused without being read.
 */
export async function readImageFile(path: string, name: string): Promise<ImageBlock | undefined> {
  const file = Bun.file(path);
  if (!sniffImage(await file.slice(0, 12).bytes())) return undefined;
  if (file.size > MAX_IMAGE_BYTES) throw tooLargeImage(name, file.size);
  return imageBlock(await file.bytes(), name);
}
