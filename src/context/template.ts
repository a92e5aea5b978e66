import { Eta, EtaParseError } from "eta";
import { IonError } from "../errors.ts";
import { messageOf } from "../util/error-text.ts";

/**
 * eta templates compiled once per source text and rendered as plain text. Any failure — a tag left
 * open, JavaScript that does not parse, an expression that throws — is an `IonError("config")` naming
 * the template's file and line, since a user may have written the template.
 *
 *   renderTemplate({source, path}, data) → string
 */

export interface PromptTemplate {
  source: string;
  /** Shown in errors: the user's file, or the built-in template's name. */
  path: string;
  /**
   * The source already compiled by eta with ETA_OPTIONS (`compileToString`: the body of the render
   * function), for a built-in template compiled when ion is built (see precompile.ts).
   */
  compiled?: string;
}

// Plain text out: the prompt is not HTML, so nothing is escaped. `debug` makes eta track the template
// line of every tag, so a runtime error can say where it happened.
export const ETA_OPTIONS = { autoEscape: false, autoTrim: false, debug: true } as const;
const eta = new Eta(ETA_OPTIONS);
// Without debug's try/catch wrapper, JavaScript syntax errors read as the user's code, not eta's.
// Made only when a template does not compile.
let plain: Eta | undefined;

type Compiled = (this: Eta, it: object, options: { filepath: string }) => string;
const compiled = new Map<string, Compiled>();

function compile(template: PromptTemplate): Compiled {
  // What eta.compile does with a body it made itself: `new Function(varName, "options", body)`.
  if (template.compiled !== undefined)
    return new Function(eta.config.varName, "options", template.compiled) as Compiled;
  return eta.compile(template.source) as unknown as Compiled;
}

export function renderTemplate(template: PromptTemplate, data: object): string {
  let fn = compiled.get(template.source);
  if (!fn) {
    try {
      fn = compile(template);
    } catch (err) {
      throw templateError(template, ...compileFailure(template.source, err));
    }
    compiled.set(template.source, fn);
  }
  try {
    return fn.call(eta, data, { filepath: template.path });
  } catch (err) {
    // eta's debug wrapper rethrows as "<path>:<line>\n<context>\n\n<message>" with the original as cause.
    const line = err instanceof Error ? /:(\d+)\n/.exec(err.message)?.[1] : undefined;
    const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw templateError(template, line === undefined ? undefined : Number(line), reason);
  }
}

function templateError(template: PromptTemplate, line: number | undefined, reason: string): IonError {
  const where = line === undefined ? template.path : `${template.path}:${line}`;
  return new IonError("config", `template error in ${where}: ${reason}`, {
    hint: "fix the template, or move it away to use the built-in one",
  });
}

function lineAt(source: string, index: number): number {
  return source.slice(0, index).split("\n").length;
}

/** The line and reason of a template that does not compile. */
function compileFailure(source: string, err: unknown): [number | undefined, string] {
  if (!(err instanceof EtaParseError)) return [undefined, messageOf(err)];
  // eta's own parse errors: "unclosed tag at line 3 col 5:\n\n  …".
  const own = /^(.*) at line (\d+) col \d+/.exec(err.message);
  if (own) return [Number(own[2]), own[1]!];
  return javaScriptFailure(source);
}

const END_OF_INPUT = /end of (script|input)/i;

/**
 * JavaScript in a tag that does not parse: the engine's message has no template position, so the
 * template is compiled up to the end of each tag in turn; the first prefix that fails for another
 * reason than "ends too early" (a block still open) holds the bad tag.
 */
function javaScriptFailure(source: string): [number | undefined, string] {
  let reason = "the template's JavaScript does not parse";
  for (let end = source.indexOf("%>"); end >= 0; end = source.indexOf("%>", end + 2)) {
    const message = syntaxError(source.slice(0, end + 2));
    if (message === undefined || END_OF_INPUT.test(message)) continue;
    return [lineAt(source, source.lastIndexOf("<%", end)), message];
  }
  const whole = syntaxError(source);
  if (whole !== undefined)
    reason = END_OF_INPUT.test(whole) ? "a block opened with `{` is never closed" : whole;
  return [lineAt(source, source.length), reason];
}

function syntaxError(source: string): string | undefined {
  plain ??= new Eta({ autoEscape: false, autoTrim: false });
  try {
    plain.compile(source);
    return undefined;
  } catch (err) {
    if (!(err instanceof Error)) return String(err);
    // "Bad template syntax\n\n<engine message>\n====…": keep the engine's message.
    return err.message.split("\n")[2] ?? err.message;
  }
}
