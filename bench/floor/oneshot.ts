/**
 * The one-shot floor (SPEC §12): a dependency-free client that does what `ion run "hi"` must do at
 * the least — one streaming chat request to `$URL/v1/chat/completions`, read the SSE to the end,
 * print the text as it arrives. Compiled with ion's own flags by bench/run-overhead.ts.
 */
const url = `${process.env.URL ?? "http://127.0.0.1:8080"}/v1/chat/completions`;
const response = await fetch(url, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    authorization: `Bearer ${process.env.OPENAI_API_KEY ?? "sk-test-fake"}`,
  },
  body: JSON.stringify({
    model: "gpt-4o-mini",
    stream: true,
    messages: [{ role: "user", content: process.argv[2] ?? "hi" }],
  }),
});
if (!response.ok || !response.body) {
  console.error(`oneshot: HTTP ${response.status}`);
  process.exit(1);
}

const out = Bun.stdout.writer();
const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of response.body) {
  buffer += decoder.decode(chunk, { stream: true }).replaceAll("\r\n", "\n");
  for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
    const event = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    for (const line of event.split("\n")) {
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") continue;
      const parsed = JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[] };
      const delta = parsed.choices?.[0]?.delta?.content;
      if (delta) {
        out.write(delta);
        out.flush();
      }
    }
  }
}
out.write("\n");
await out.end();

// A module (for top-level await), importing nothing.
export {};
