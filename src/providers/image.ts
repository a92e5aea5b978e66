/**
 * Images as user input: what counts as one (PNG, JPEG, GIF, WebP, by their first bytes — the types
 * OpenAI, Anthropic, Mistral and Ollama all take), the size ion accepts, how one is named in
 * transcripts and counted in estimates, and the refusal for a model the catalogue says cannot read them.
 */
import { IonError } from "../errors.ts";
import type {
  ImageBlock,
  ImageMediaType,
  Message,
  ModelCapabilities,
  StreamRequest,
  UserBlock,
} from "./types.ts";

/**
 * Per image, as read. Anthropic refuses an image over 5 MB, and every provider scales a large image
 * down to about 1.5 megapixels anyway, so a bigger file only costs upload time.
 */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * What one image counts for in token estimates: about what Anthropic charges for a full-size image
 * (width × height / 750, at most ~1600) and in the range of OpenAI's high-detail cost. An estimate
 * only: a provider's reported usage replaces it.
 */
export const IMAGE_TOKENS = 1600;

const startsWith = (bytes: Uint8Array, prefix: number[], at = 0) =>
  prefix.every((byte, i) => bytes[at + i] === byte);

/** The image type by its magic bytes (the first 12 are enough); undefined for anything else. */
export function sniffImage(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif"; // GIF87a / GIF89a
  // RIFF....WEBP
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return "image/webp";
  return undefined;
}

/** The image's size in bytes, from its base64 length. */
export function imageSize(block: ImageBlock): number {
  const padding = block.data.endsWith("==") ? 2 : block.data.endsWith("=") ? 1 : 0;
  return Math.floor((block.data.length * 3) / 4) - padding;
}

/** `70 B`, `120 KB`, `1.5 MB`: a file's size as the chat shows it. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `[image: shot.png, 120 KB]`: how transcripts and summaries show an image. */
export function imageLabel(block: ImageBlock): string {
  return `[image: ${block.name ?? block.media_type}, ${sizeText(imageSize(block))}]`;
}

/** `data:image/png;base64,…`: the form the OpenAI and Mistral wires take an image in. */
export function dataUrl(block: ImageBlock): string {
  return `data:${block.media_type};base64,${block.data}`;
}

/** The refusal for an image over MAX_IMAGE_BYTES, with how to make it smaller. */
export function tooLargeImage(name: string, bytes: number): IonError {
  return new IonError(
    "usage",
    `${name} is too large to attach (${sizeText(bytes)}; images up to ${sizeText(MAX_IMAGE_BYTES)})`,
    {
      hint: "scale it down first, e.g. `sips -Z 1568 shot.png` (macOS) or `convert shot.png -resize 1568x1568 small.png` (ImageMagick); models see about 1.5 megapixels anyway",
    },
  );
}

/** The image block of a file's bytes, or undefined when they are not a PNG, JPEG, GIF or WebP image. */
export function imageBlock(bytes: Uint8Array, name: string): ImageBlock | undefined {
  const mediaType = sniffImage(bytes);
  if (!mediaType) return undefined;
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLargeImage(name, bytes.length);
  return { type: "image", media_type: mediaType, data: Buffer.from(bytes).toString("base64"), name };
}

/**
 * Refuses, before any request, a message with images to a model the catalogue says cannot read
 * them. A model the catalogue does not know gets them: its provider answers.
 */
export function imageRefusal(
  content: readonly UserBlock[],
  capabilities: ModelCapabilities | undefined,
  label: string,
): IonError | undefined {
  if (capabilities?.image_input !== false || !content.some((b) => b.type === "image")) return undefined;
  return new IonError(
    "usage",
    `${label} cannot read images; choose a model with image input (\`ion models\` shows caps)`,
    { hint: "nothing was sent" },
  );
}

/**
 * The request as a model that cannot read images may get it: images earlier in the conversation
 * (attached before a switch of model) become their label, so the request is not refused for them.
 */
export function imagesFor(request: StreamRequest): StreamRequest {
  if (request.modelInfo?.image_input !== false) return request;
  if (!request.messages.some((m) => m.role === "user" && m.content.some((b) => b.type === "image")))
    return request;
  const messages: Message[] = request.messages.map((m) =>
    m.role === "user"
      ? {
          role: "user",
          content: m.content.map((b) =>
            b.type === "image"
              ? { type: "text", text: `${imageLabel(b)} (not shown: this model cannot read images)` }
              : b,
          ),
        }
      : m,
  );
  return { ...request, messages };
}
