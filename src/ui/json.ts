import { jsonLine, type Renderer, type RenderOptions } from "./renderer.ts";

/** `-o json`: exactly one object on stdout, the result, whatever happened. */
export function jsonRenderer(options: RenderOptions): Renderer {
  return {
    onEvent(event) {
      if (event.type === "result")
        options.stdout.write(jsonLine({ ...event.result, uuid: Bun.randomUUIDv7() }));
    },
    close() {},
  };
}
