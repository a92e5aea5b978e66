/**
 * `${VAR}` and `${VAR:-default}` in MCP server definitions, as Claude Code expands them in `.mcp.json`:
 * in `command`, `args`, `env` values, `url` and `headers` values. A set variable wins even when empty;
 * an unset one takes its default; an unset one without a default stays as the literal text and is
 * reported (Claude Code starts the server anyway, and so does ion). A bare `$VAR` is never expanded.
 */

export type Environment = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{([^}]+)\}/g;

export interface Expanded<T> {
  value: T;
  /** Variables that were unset and had no default, in order of first use. */
  missing: string[];
}

export function expandString(text: string, env: Environment): Expanded<string> {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (whole, inner: string) => {
    const split = inner.indexOf(":-");
    const name = split < 0 ? inner : inner.slice(0, split);
    const fallback = split < 0 ? undefined : inner.slice(split + 2);
    const set = env[name];
    if (set !== undefined) return set;
    if (fallback !== undefined) return fallback;
    if (!missing.includes(name)) missing.push(name);
    return whole;
  });
  return { value, missing };
}

/** Expands every string of a list or the values of a record, collecting what was missing. */
export class Expander {
  readonly missing: string[] = [];

  constructor(private readonly env: Environment) {}

  string(text: string): string {
    const { value, missing } = expandString(text, this.env);
    for (const name of missing) if (!this.missing.includes(name)) this.missing.push(name);
    return value;
  }

  list(items: readonly string[]): string[] {
    return items.map((item) => this.string(item));
  }

  record(values: Readonly<Record<string, string>>): Record<string, string> {
    return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, this.string(value)]));
  }
}
