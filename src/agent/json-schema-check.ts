import { z } from "zod";

/**
 * zod's JSON Schema reader, in a module of its own that `structured-output.ts` imports lazily. A static
 * named import lets the bundler keep only what is used; `await import("zod")` would keep all of zod
 * in a chunk every run with tools loads.
 */
export const fromJSONSchema = z.fromJSONSchema;
