import * as z from "zod/mini";

/**
 * The configuration schema: the single source of truth for `config.json`, the project's
 * `.ion/config.json` and `keys.json`. Known sections are strict so unknown keys can be reported
 * (as warnings, never failures); extension sections (`hooks`, `mcpServers`, `skills`) are
 * loose until their features define them.
 *
 * Written with `zod/mini` (zod's functional API over the same validation core): every command reads
 * the configuration, and mini's schemas build in a fraction of the classic API's time (measured on the
 * compiled binary: ~6 ms instead of ~16 ms for importing zod and building these schemas).
 */

// zod/mini carries no messages of its own: the English ones, as the classic API has them.
z.config(z.locales.en());

const positiveInt = z.number().check(z.int(), z.positive());
const urlOrNull = z.nullable(z.string());

export const ProviderConfigSchema = z.strictObject({
  /** Only user-defined providers need it; any id that is not built in is OpenAI-compatible. */
  type: z.optional(z.literal("openai-compatible")),
  name: z.optional(z.string()),
  api_key: z.optional(z.string()),
  /** Base URL in the form the wire's SDK expects (OpenAI-compatible: with `/v1`). */
  api_base: z.optional(urlOrNull),
  models: z.optional(z.array(z.string())),
  headers: z.optional(z.record(z.string(), z.string())),
  context_window: z.optional(positiveInt),
  /** Send the model's `reasoning_content` back on tool-call turns (DeepSeek, Kimi); unset: by URL and model. */
  resend_reasoning_content: z.optional(z.boolean()),
});

export const ThinkingSchema = z.enum(["off", "low", "medium", "high"]);

export const ConfigSchema = z.strictObject({
  /** Editors' JSON-schema hint; accepted and ignored. */
  $schema: z.optional(z.string()),
  // Flat form of the original design: top-level key and base URL apply to the selected provider.
  provider: z.optional(z.string().check(z.minLength(1))),
  model: z.optional(z.string().check(z.minLength(1))),
  api_key: z.optional(z.string()),
  api_base: z.optional(urlOrNull),
  preamble: z.optional(z.string()),
  context_window: z.optional(positiveInt),
  // Full form.
  providers: z.optional(z.record(z.string(), ProviderConfigSchema)),
  thinking: z.optional(ThinkingSchema),
  /** Starred models (`provider/model`): the user's own taste, so a project file cannot set them. */
  favorites: z.optional(
    z.array(z.string().check(z.regex(/^[^/\s]+\/\S+$/, "expected provider/model, e.g. openai/gpt-4o"))),
  ),
  tools: z.optional(
    z.strictObject({
      disabled: z.optional(z.array(z.string())),
      /** What commands inherit (src/tools/command-env.ts); the user's own config only. */
      bash: z.optional(
        z.strictObject({
          env: z.optional(
            z.strictObject({
              /** Names or globs re-admitted past the secret-name rule (`GITHUB_TOKEN`, `AWS_*`). */
              keep: z.optional(z.array(z.string())),
              /** Names or globs never passed on. */
              exclude: z.optional(z.array(z.string())),
            }),
          ),
        }),
      ),
    }),
  ),
  permissions: z.optional(z.strictObject({ mode: z.optional(z.enum(["read", "ask", "auto"])) })),
  workspace: z.optional(z.strictObject({ allow: z.optional(z.array(z.string())) })),
  history: z.optional(
    z.strictObject({
      retention_days: z.optional(z.number().check(z.int(), z.minimum(0))),
      compact_threshold: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
    }),
  ),
  plan: z.optional(
    z.strictObject({
      /** A user message over 100 characters goes to the designer subagent first; the main agent follows its plan. */
      auto: z.optional(z.boolean()),
    }),
  ),
  network: z.optional(
    z.strictObject({
      /** Seconds a server may stay silent (before the first byte, between chunks) before the attempt fails. */
      idle_timeout_s: z.optional(z.number().check(z.positive(), z.maximum(86_400))),
    }),
  ),
  chat: z.optional(
    z.strictObject({
      /** A chat turn that took longer than this many seconds rings the terminal's bell when it ends; 0: never. */
      notify_after_s: z.optional(z.number().check(z.minimum(0), z.maximum(86_400))),
    }),
  ),
  mcp: z.optional(
    z.strictObject({
      /** Milliseconds each MCP server may take to start and list its tools (default 10 000). */
      startup_timeout_ms: z.optional(positiveInt.check(z.maximum(86_400_000))),
      /** Milliseconds an MCP tool call may take before it fails (default 120 000). */
      tool_timeout_ms: z.optional(positiveInt.check(z.maximum(86_400_000))),
    }),
  ),
  subagents: z.optional(
    z.strictObject({
      /** The explorer's model (`provider/model` of the session's provider, or a model id); unset: the session's. */
      fast_model: z.optional(z.string().check(z.minLength(1))),
      /** Model requests per child agent (default 15). */
      max_turns: z.optional(positiveInt.check(z.maximum(1000))),
    }),
  ),
  memory: z.optional(
    z.strictObject({
      /** Learn every turn and recall before each prompt (default true); off: nothing is stored or recalled. */
      enabled: z.optional(z.boolean()),
      /** Tokens recalled memories may take per turn (default min(10 % of the window, 4 000)). */
      budget_tokens: z.optional(positiveInt),
      /** `provider/model` whose embeddings rank memories by meaning; unset: BM25 + recency only. */
      embedding: z.optional(
        z.string().check(z.regex(/^[^/\s]+\/\S+$/, "expected provider/model, e.g. ollama/nomic-embed-text")),
      ),
      /** Vector size asked of the embedding model (OpenAI's `dimensions`); unset: the model's own. */
      embedding_dimensions: z.optional(positiveInt),
      /** Days after which a memory's recency prior halves. */
      recency_half_life_days: z.optional(z.number().check(z.positive())),
    }),
  ),
  /** Where `bash` commands run (README "Sandbox"); the user's own config only. */
  sandbox: z.optional(
    z.strictObject({
      /** workspace-write (default where a sandbox exists) | read-only | off. */
      mode: z.optional(z.enum(["workspace-write", "read-only", "off"])),
      /** false (default): no network; true: any; a list: only these hosts (`*.example.com`: its subdomains). */
      network: z.optional(
        z.union([
          z.boolean(),
          z.array(
            z
              .string()
              .check(
                z.regex(
                  /^(\*\.)?[A-Za-z0-9._:[\]-]+$/,
                  "expected a host name, e.g. api.github.com or *.npmjs.org",
                ),
              ),
          ),
        ]),
      ),
      /** In mode auto, a command may run outside the sandbox when it asks to (default false). */
      allow_escalation: z.optional(z.boolean()),
    }),
  ),
  index: z.optional(
    z.strictObject({
      /** Tokens of the repo map a chat starts with when the project has a code index (default 1 000); 0: none. */
      map_tokens: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(16_000))),
    }),
  ),
  hooks: z.optional(z.record(z.string(), z.unknown())),
  /**
   * Claude Code's `mcpServers` (name → {command,args,env,cwd} | {type:"http"|"sse",url,headers}). Each
   * entry is checked by the MCP parser when servers start (src/mcp/config.ts): a bad one is one warning
   * and the others still start, rather than a config error that stops every command.
   */
  mcpServers: z.optional(z.record(z.string(), z.unknown())),
  skills: z.optional(z.looseObject({})),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Where a setting came from, low → high precedence. */
export type Layer = "default" | "user" | "project" | "env" | "flag";
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

/** `keys.json`: provider id → API key. */
export const KeysSchema = z.record(z.string(), z.string());
export type Keys = z.infer<typeof KeysSchema>;

/** `["providers", "openai", "models", 0]` → `providers.openai.models[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(top level)" : out;
}

/** zod's "Invalid input: expected number, received string" → "expected number, received string". */
function expectation(message: string): string {
  return message.replace(/^[A-Z][a-z]+(?: [a-z]+)?: (?=expected)/, "");
}

export type Validated<T> = { ok: true; value: T; unknownKeys: string[] } | { ok: false; error: string };

/**
 * Validates `value` against a schema whose unknown keys are reported rather than fatal. Any other
 * issue is an error: `<field path>: <what was expected>` (values are never echoed: they may be keys).
 */
export function validate<T>(schema: z.ZodMiniType<T>, value: unknown): Validated<T> {
  const first = schema.safeParse(value);
  if (first.success) return { ok: true, value: first.data, unknownKeys: [] };
  const unknown = first.error.issues.filter((issue) => issue.code === "unrecognized_keys");
  const others = first.error.issues.filter((issue) => issue.code !== "unrecognized_keys");
  const head = others[0];
  if (head) {
    const more = others.length > 1 ? ` (and ${others.length - 1} more)` : "";
    return { ok: false, error: `${formatPath(head.path)}: ${expectation(head.message)}${more}` };
  }
  const pruned = structuredClone(value);
  const unknownKeys: string[] = [];
  for (const issue of unknown) {
    const parent = lookup(pruned, issue.path);
    for (const key of issue.keys) {
      unknownKeys.push(issue.path.length === 0 ? key : `${formatPath(issue.path)}.${key}`);
      if (parent) delete parent[key];
    }
  }
  const second = schema.safeParse(pruned);
  if (!second.success) {
    const issue = second.error.issues[0];
    return {
      ok: false,
      error: issue ? `${formatPath(issue.path)}: ${expectation(issue.message)}` : "invalid",
    };
  }
  return { ok: true, value: second.data, unknownKeys: unknownKeys.sort() };
}

function lookup(root: unknown, path: readonly PropertyKey[]): Record<PropertyKey, unknown> | undefined {
  let node: unknown = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return typeof node === "object" && node !== null ? (node as Record<PropertyKey, unknown>) : undefined;
}

class JsonSyntax {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

/**
 * Where and why `text` is not valid JSON. Bun's `JSON.parse` reports no position and its message may
 * quote the offending token, so malformed files are located with this small scanner instead.
 */
export function locateJsonError(text: string): { line: number; column: number; reason: string } | undefined {
  let i = 0;
  function fail(reason: string): never {
    throw new JsonSyntax(i, text[i] === undefined ? "unexpected end of file" : reason);
  }
  const space = () => {
    while (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r") i++;
  };
  const string = (what: string) => {
    if (text[i] !== '"') fail(`expected ${what} in double quotes`);
    for (i++; text[i] !== '"'; i++) {
      const c = text[i];
      if (c === undefined || c === "\n") fail("unterminated string");
      else if (c === "\\") i++;
      else if (c < " ") fail("control character in string");
    }
    i++;
  };
  const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  const value = (): void => {
    space();
    const open = text[i];
    if (open === "{" || open === "[") {
      const close = open === "{" ? "}" : "]";
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        space();
        if (open === "{") {
          string("a property name");
          space();
          if (text[i] !== ":") fail("expected ':' after the property name");
          i++;
        }
        value();
        space();
        if (text[i] === close) {
          i++;
          return;
        }
        if (text[i] !== ",") fail(`expected ',' or '${close}'`);
        i++;
        space();
        if (text[i] === close) fail(`trailing comma before '${close}'`);
      }
    }
    if (open === '"') {
      string("a string");
      return;
    }
    literal.lastIndex = i;
    if (!literal.test(text)) fail("unexpected character (strings need double quotes)");
    i = literal.lastIndex;
  };
  try {
    value();
    space();
    if (i < text.length) fail("unexpected text after the end of the JSON value");
    return undefined;
  } catch (err) {
    if (!(err instanceof JsonSyntax)) throw err;
    const before = text.slice(0, err.offset);
    const line = before.split("\n").length;
    return { line, column: err.offset - before.lastIndexOf("\n"), reason: err.reason };
  }
}
