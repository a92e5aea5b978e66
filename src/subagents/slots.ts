/**
 * At most `size` holders at once: the children of a session that run in parallel (the parent's
 * read-only calls run together, so five `task` calls in one step would start five children). The
 * others wait in order of arrival, and stop waiting when their call is aborted.
 *
 *   new Slots(size).take(signal) → release | undefined      undefined: aborted before a slot was free
 */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async take(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return undefined;
    if (this.used < this.size) {
      this.used++;
      return this.releaser();
    }
    const got = await new Promise<boolean>((resolve) => {
      const ready = () => {
        signal.removeEventListener("abort", aborted);
        resolve(true);
      };
      const aborted = () => {
        const at = this.waiting.indexOf(ready);
        if (at !== -1) this.waiting.splice(at, 1);
        resolve(false);
      };
      this.waiting.push(ready);
      signal.addEventListener("abort", aborted, { once: true });
    });
    // A slot handed over by a release: `used` already counts it.
    return got ? this.releaser() : undefined;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.used--;
    };
  }
}
