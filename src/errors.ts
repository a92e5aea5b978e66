/**
 * Typed errors. Every failure a user can see is an IonError with a code; `main.ts` is the one
 * place that turns a code into an exit status and a single line on stderr.
 */
import { redactText } from "./util/secrets.ts";

export type IonErrorCode =
  | "usage" // bad flags or arguments → 64
  | "config" // malformed or missing configuration → 1
  | "provider" // the model provider failed (auth, rate limit, server, stream) → 1
  | "tool" // tool infrastructure failed → 1
  | "io" // a local file could not be read or written → 1
  | "interrupted" // SIGINT / SIGTERM → 2
  | "max_turns" // --max-turns reached → 3
  | "internal"; // a bug → 1

export const EXIT = {
  success: 0,
  error: 1,
  interrupted: 2,
  maxTurns: 3,
  usage: 64,
} as const;

export class IonError extends Error {
  readonly code: IonErrorCode;
  /** One actionable line shown after the message, e.g. "run `ion config set model …`". */
  readonly hint: string | undefined;

  constructor(code: IonErrorCode, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "IonError";
    this.code = code;
    this.hint = options?.hint;
  }
}

export function exitCodeFor(code: IonErrorCode): number {
  switch (code) {
    case "usage":
      return EXIT.usage;
    case "interrupted":
      return EXIT.interrupted;
    case "max_turns":
      return EXIT.maxTurns;
    default:
      return EXIT.error;
  }
}

/**
 * The one line a user sees for any thrown value. Never includes a stack trace, nor a key or a URL's
 * credentials (whichever module wrote the message).
 */
export function describeError(err: unknown): string {
  if (err instanceof IonError) return oneLine(redactText(err.message));
  if (err instanceof Error) return oneLine(redactText(err.message || err.name));
  return oneLine(redactText(String(err)));
}

/** A message as one line: a program splits stderr and `errors[]` on newlines, so none may hide inside. */
export function oneLine(text: string): string {
  return text.includes("\n") ? text.trim().replace(/\s*\n\s*/g, "; ") : text;
}
