import { describe, expect, test } from "bun:test";
import { MCP_MAX_OUTPUT_CHARS, outcomeOfResult } from "../../src/mcp/result.ts";

describe("MCP results as tool outcomes", () => {
  test("text parts are joined by newlines; isError makes an error outcome", () => {
    expect(
      outcomeOfResult({
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      }),
    ).toEqual({ content: "one\ntwo", is_error: false });
    expect(outcomeOfResult({ content: [{ type: "text", text: "no such file" }], isError: true })).toEqual({
      content: "no such file",
      is_error: true,
    });
  });

  test("images, audio and resources become one-line notes with their type and size", () => {
    const { content } = outcomeOfResult({
      content: [
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "audio", mimeType: "audio/wav", data: "AAA=" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "hello" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAAAA==" } },
        { type: "resource_link", uri: "file:///c.md", name: "c", mimeType: "text/markdown", size: 1200 },
      ],
    });
    expect(content.split("\n")).toEqual([
      "[image: image/png, 3 bytes]",
      "[audio: audio/wav, 2 bytes]",
      "[resource: file:///a.txt, text/plain, 5 characters of text]",
      "[resource: file:///b.bin, unknown type, 4 bytes]",
      "[resource link: file:///c.md, text/markdown, 1,200 bytes]",
    ]);
  });

  test("structuredContent is added as JSON unless the text already says it", () => {
    const weather = { temperature: 21, conditions: "sunny" };
    expect(outcomeOfResult({ content: [], structuredContent: weather }).content).toBe(
      JSON.stringify(weather),
    );
    expect(
      outcomeOfResult({ content: [{ type: "text", text: "It is nice out" }], structuredContent: weather })
        .content,
    ).toBe(`It is nice out\n${JSON.stringify(weather)}`);
    // The MCP spec's backwards-compatible form: the same JSON as text.
    expect(
      outcomeOfResult({
        content: [{ type: "text", text: JSON.stringify(weather, null, 2) }],
        structuredContent: weather,
      }).content,
    ).toBe(JSON.stringify(weather, null, 2));
    // A server wrapping its text: nothing new in the structured copy.
    expect(
      outcomeOfResult({
        content: [{ type: "text", text: "[FILE] a.txt" }],
        structuredContent: { content: "[FILE] a.txt" },
      }).content,
    ).toBe("[FILE] a.txt");
  });

  test("an empty result says so; a huge one is cut to the built-in tools' cap with a marker", () => {
    expect(outcomeOfResult({ content: [] })).toEqual({
      content: "(the tool returned no content)",
      is_error: false,
    });
    const { content } = outcomeOfResult({
      content: [{ type: "text", text: "y".repeat(MCP_MAX_OUTPUT_CHARS + 500) }],
    });
    expect(content).toStartWith("y".repeat(100));
    expect(content).toContain("[… truncated: 500 more characters not shown]");
  });

  test("the protocol's first result shape (toolResult) is its JSON", () => {
    expect(outcomeOfResult({ toolResult: { ok: true } })).toEqual({
      content: '{"ok":true}',
      is_error: false,
    });
  });
});
