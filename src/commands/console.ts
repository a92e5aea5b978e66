/**
 * Provider SDKs write deprecation warnings and debug logs with console.*. ion's own output never
 * uses console, so in a run console output goes to stderr with -v and nowhere otherwise: stdout stays
 * the chosen format only.
 */
export function routeConsole(log: ((line: string) => void) | undefined): void {
  const sink = (...parts: unknown[]) => {
    log?.(parts.map((p) => (typeof p === "string" ? p : Bun.inspect(p))).join(" "));
  };
  console.log = sink;
  console.info = sink;
  console.warn = sink;
  console.error = sink;
  console.debug = sink;
  console.trace = sink;
}

/** Node-style process warnings (deprecations from dependencies) follow the same rule. */
export function routeProcessWarnings(log: ((line: string) => void) | undefined): void {
  process.emitWarning = ((warning: string | Error) => {
    log?.(typeof warning === "string" ? warning : warning.message);
  }) as typeof process.emitWarning;
}
