/** A JSON object as parsed: not null, not an array. The one check behind every config and project-file reader. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
