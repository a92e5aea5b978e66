/**
 * A prompt as an FTS5 MATCH expression: its words, lowercased, stopwords dropped, each quoted as a
 * string (so nothing in the prompt — quotes, `*`, `NEAR`, `AND`, column filters, parentheses — is read
 * as FTS5 syntax), OR-ed so any shared word makes a candidate and BM25 ranks them. Words are split
 * the way FTS5's unicode61 tokenizer splits them: letters, digits and combining marks.
 */

/** A long prompt is cut to this many distinct words: enough to find, bounded cost per search. */
export const MAX_TERMS = 32;

const STOPWORDS = new Set(
  (
    "a an the and or but nor so yet if then else than that this these those there here of to in on at by " +
    "for with from into onto over under about as is are was were be been being am do does did doing done " +
    "have has had having i me my mine we us our ours you your yours he him his she her hers it its they " +
    "them their theirs what which who whom whose when where why how all any both each few more most other " +
    "some such no not only own same too very can could will would shall should may might must just also " +
    "again once up down out off s t ll re ve d m don doesn didn isn aren wasn weren won wouldn couldn " +
    "shouldn let lets let's please thanks thank hi hello hey ok okay yes yeah tell know think want need " +
    "like get got make made use used one now"
  ).split(" "),
);

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/** The MATCH expression for `text`, or "" when it has no word worth searching for. */
export function toFtsQuery(text: string): string {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(TOKEN)) {
    const word = match[0];
    if (seen.has(word) || STOPWORDS.has(word)) continue;
    if (/^[a-z]$/.test(word)) continue; // a lone Latin letter finds everything
    seen.add(word);
    terms.push(`"${word}"`);
    if (terms.length === MAX_TERMS) break;
  }
  return terms.join(" OR ");
}
