/**
 * `@path` mentions in a chat message. A mention starts with `@` at the start of the message or after
 * whitespace or `(` — so `me@example.com` is never one — and names a path the way a shell would:
 * `@src/a.ts`, `@"my notes.md"`, `@'my notes.md'` or `@my\ notes.md`. Whether it attaches anything is
 * decided later, by the file system: a mention that is not an existing file stays plain text
 * (`@user`, `@here`).
 *
 *   mentionsIn("see @a.ts, @\"b c.md\"") → [{ path: "a.ts,", trimmed: "a.ts" }, { path: "b c.md" }]
 *   mentionAtEnd("explain @srcma")      → { start: 8, path: "srcma" }   (what Tab completes)
 *   mentionText("my notes.md")          → `@my\ notes.md`
 */

export interface Mention {
  /** The path as written, quotes removed and `\x` unescaped. */
  path: string;
  /** The path without the punctuation that ends a sentence (`@a.ts,` → `a.ts`), when it had some. */
  trimmed?: string;
}

interface Token extends Mention {
  start: number;
  end: number;
  quote: '"' | "'" | undefined;
  /** A quoted mention reached its closing quote. */
  closed: boolean;
}

/** `@a.ts?` ends a sentence; quotes and brackets close one: none is part of the path. */
const SENTENCE_END = /[?!.,;:)\]'"]+$/;

function startsMention(text: string, at: number): boolean {
  if (text[at] !== "@") return false;
  const before = text[at - 1];
  return before === undefined || before === "(" || /\s/.test(before);
}

/** The mention whose `@` is at `start`, read to its end. */
function readToken(text: string, start: number): Token {
  const first = text[start + 1];
  if (first === '"' || first === "'") {
    const close = text.indexOf(first, start + 2);
    const end = close === -1 ? text.length : close + 1;
    const path = text.slice(start + 2, close === -1 ? text.length : close);
    return { start, end, path, quote: first, closed: close !== -1 };
  }
  let path = "";
  let at = start + 1;
  while (at < text.length && !/\s/.test(text[at]!)) {
    if (text[at] === "\\" && at + 1 < text.length) at++; // `\ ` is a space of the path
    path += text[at];
    at++;
  }
  const trimmed = path.replace(SENTENCE_END, "");
  const token: Token = { start, end: at, path, quote: undefined, closed: true };
  if (trimmed !== path && trimmed !== "") token.trimmed = trimmed;
  return token;
}

function* tokens(text: string): Generator<Token> {
  let at = 0;
  while (at < text.length) {
    if (!startsMention(text, at)) {
      at++;
      continue;
    }
    const token = readToken(text, at);
    yield token;
    at = Math.max(token.end, at + 1);
  }
}

/** The mentions of a message, in order, each path once; an unclosed quote or a bare `@` is plain text. */
export function mentionsIn(text: string): Mention[] {
  const seen = new Set<string>();
  const found: Mention[] = [];
  for (const token of tokens(text)) {
    if (token.path === "" || !token.closed || seen.has(token.path)) continue;
    seen.add(token.path);
    found.push(
      token.trimmed === undefined ? { path: token.path } : { path: token.path, trimmed: token.trimmed },
    );
  }
  return found;
}

/** The mention being typed at the end of `line` (the text before the cursor), if there is one. */
export function mentionAtEnd(
  line: string,
): { start: number; path: string; quote: '"' | "'" | undefined } | undefined {
  let last: Token | undefined;
  for (const token of tokens(line)) last = token;
  if (!last || last.end !== line.length) return undefined;
  return { start: last.start, path: last.path, quote: last.quote };
}

/** A path as a mention that reads back as that path: quoted as the user began it, else `\`-escaped. */
export function mentionText(path: string, quote?: '"' | "'"): string {
  if (quote !== undefined && !path.includes(quote)) return `@${quote}${path}${quote}`;
  const escaped = path.replace(/[\s\\]/g, "\\$&");
  return `@${/^["']/.test(escaped) ? `\\${escaped}` : escaped}`;
}
