import { z } from "zod";
import { ANSWER_MAX_LINES } from "../code-index/answer-lines.ts";
import { DEFAULT_MAP_TOKENS } from "../code-index/map-focus.ts";
import type { Env } from "../config/paths.ts";
import { defineTool, ToolInputError } from "./define.ts";
import type { AgentTool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";

const description = `Look up the project's code in its symbol index: definitions and references parsed with tree-sitter from TypeScript, TSX, JavaScript, Python, Rust and Go files. More exact than grep for navigating code, and it reads no whole files. The index is brought up to date before every answer, so files you just wrote or edited are included; the first call in a project without an index builds it.

- \`action: "definition"\`, \`name\`: where a function, class, method, interface, type… is defined. Exact name first (then the same name in another case; \`Class.method\` for one class's method); with no such name, the closest names (a part of a camelCase or snake_case name matches, e.g. \`retry\` finds \`withRetry\`). Lines: \`path:line  kind  signature  (lines a-b)\`.
- \`action: "references"\`, \`name\`: where the name is used (calls, type uses, …), each with the definition it sits in and the line: \`path:line  kind  in caller: code\`. Names are matched as written, not resolved by type, so a same-named thing elsewhere is included.
- \`action: "outline"\`, \`path\`: a file's definitions in line order, methods under their class.
- \`action: "map"\`: the project's most central files (ranked by how much other code references them) with their main definitions' signature lines, within \`tokens\` (default ${DEFAULT_MAP_TOKENS}). Give \`path\` or \`name\` to rank the code around them higher. Use it first in an unfamiliar project.
- With \`path\` (a file or directory), definition and references look only there.
- Paths are relative to the workspace root. At most ${ANSWER_MAX_LINES} lines; a last line says how many more. Files in other languages, ignored by .gitignore, binary or over 1 MB are not indexed — use grep for them.
Then read_file with a line's path and range to see the code.`;

const schema = z.object({
  action: z
    .enum(["definition", "references", "outline", "map"])
    .describe("definition or references of `name`, outline of the file `path`, or the repo map"),
  name: z
    .string()
    .min(1)
    .optional()
    .describe("A symbol's name, e.g. `withRetry` (definition, references; map: focus)"),
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      "A file or directory, relative to the workspace root: to outline; to look in; for the map, to lean toward",
    ),
  tokens: z
    .number()
    .int()
    .min(100)
    .max(16_000)
    .optional()
    .describe(`The map's size in tokens (default ${DEFAULT_MAP_TOKENS})`),
});

export type SymbolsRequest = z.infer<typeof schema>;

/** The tool over the index in the data directory of `env` (tests pass their own; ion its process's). */
export function symbolsToolFor(options: { env?: Env } = {}): AgentTool {
  return defineTool({
    name: "symbols",
    description,
    schema,
    readOnly: true,
    async execute(request, ctx) {
      if ((request.action === "definition" || request.action === "references") && !request.name)
        throw new ToolInputError(`${request.action} needs \`name\`, the symbol to look up`);
      if (request.action === "outline" && !request.path)
        throw new ToolInputError("outline needs `path`, the file to outline");
      // Only the workspace root is indexed: a path elsewhere (even in workspace.allow) has no entries.
      const path =
        request.path === undefined
          ? undefined
          : displayPath(resolveInWorkspace(request.path, { root: ctx.cwd, allow: [] }), ctx.cwd);
      const { answerSymbols } = await import("../code-index/lookup.ts");
      return answerSymbols(
        { ...request, ...(path === undefined ? {} : { path }) },
        {
          root: ctx.cwd,
          env: options.env ?? process.env,
          signal: ctx.signal,
          conversation: ctx.parent?.input.messages ?? [],
          ...(ctx.onUpdate ? { onUpdate: ctx.onUpdate } : {}),
        },
      );
    },
  });
}

export const symbolsTool: AgentTool = symbolsToolFor();
