/**
 * The signals that end a run or a chat turn: Ctrl+C (SIGINT), `kill` or a CI timeout (SIGTERM), a
 * closed terminal, a dropped ssh or a cancelled CI job (SIGHUP). Each is handled the same way — the
 * work is cancelled, the turn saved as interrupted, locks released, exit 2 — instead of the default
 * action, which would kill ion at once and leave its tools running and its locks behind.
 */
const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type EndingSignal = (typeof ENDING_SIGNALS)[number];

/** Calls `handler` on each ending signal until the returned function is called. */
export function onEndingSignals(handler: (signal: EndingSignal) => void): () => void {
  const listeners = ENDING_SIGNALS.map((signal) => {
    const listener = () => handler(signal);
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}
