import { describe, expect, test } from "bun:test";
import { messageChars } from "../../src/agent/tokens.ts";
import { IMAGE_TOKENS, imageLabel, imageSize, imagesFor, sniffImage } from "../../src/providers/image.ts";
import type { ImageBlock, StreamRequest } from "../../src/providers/types.ts";

const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const image: ImageBlock = { type: "image", media_type: "image/png", data: PNG_BASE64, name: "shot.png" };

describe("images", () => {
  test("the four types are told by their first bytes, whatever the name says", () => {
    const bytes = (...b: number[]) => new Uint8Array([...b, ...new Array(12).fill(0)]);
    expect(sniffImage(Buffer.from(PNG_BASE64, "base64"))).toBe("image/png");
    expect(sniffImage(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(sniffImage(new TextEncoder().encode("GIF89a......"))).toBe("image/gif");
    expect(sniffImage(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(sniffImage(new TextEncoder().encode("RIFF\0\0\0\0WAVEfmt "))).toBeUndefined();
    expect(sniffImage(new TextEncoder().encode("<svg xmlns="))).toBeUndefined();
  });

  test("size and label come from the base64 data", () => {
    expect(imageSize(image)).toBe(70);
    expect(imageLabel(image)).toBe("[image: shot.png, 70 B]");
  });

  test("an image counts as IMAGE_TOKENS in estimates", () => {
    expect(messageChars({ role: "user", content: [image] })).toBe(IMAGE_TOKENS * 4);
  });

  test("for a model without image input, earlier images are sent as their label", () => {
    const request = {
      messages: [{ role: "user", content: [image, { type: "text", text: "what is this?" }] }],
      modelInfo: { reasoning: false, tool_call: true, image_input: false },
    } as StreamRequest;
    expect(imagesFor(request).messages[0]?.content).toEqual([
      { type: "text", text: "[image: shot.png, 70 B] (not shown: this model cannot read images)" },
      { type: "text", text: "what is this?" },
    ]);
    const unknown = { ...request, modelInfo: { reasoning: null, tool_call: null } };
    expect(imagesFor(unknown)).toBe(unknown);
  });
});
