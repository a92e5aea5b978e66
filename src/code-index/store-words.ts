/**
 * The words of an identifier, for full-text search over symbol names: split on underscores and other
 * separators, lower-to-upper case changes, acronyms and digits, all lower-cased.
 *
 *   nameWords("parseHttpRequest")  → ["parse", "http", "request"]
 *   nameWords("HTTPServer2_start") → ["http", "server", "2", "start"]
 */
export function nameWords(name: string): string[] {
  return (name.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[\p{Lo}\p{Lm}\p{Lt}]+/gu) ?? []).map((word) =>
    word.toLowerCase(),
  );
}

/**
 * What the FTS table holds for a name: its words, then the whole name lower-cased when it has several,
 * so a query typed without its case ("parsehttp") still finds it by prefix.
 */
export function indexedWords(name: string): string {
  const words = nameWords(name);
  const whole = name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return words.length > 1 && whole !== "" ? `${words.join(" ")} ${whole}` : words.join(" ") || whole;
}

/**
 * An FTS5 MATCH expression finding names whose words start with the given words — all of them, or
 * with `any` at least one: ["parse", "http"] → `"parse"* "http"*`.
 */
export function prefixQuery(words: readonly string[], any = false): string {
  // Quoted, so FTS5 reads each as a plain string whatever it holds (AND, NEAR, ^, …).
  return words.map((word) => `"${word.replace(/"/g, '""')}"*`).join(any ? " OR " : " ");
}
