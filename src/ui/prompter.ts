/** The first-run Prompter on a real terminal, backed by @clack/prompts (tests pass plain objects). */
import { CANCELLED, type Cancelled, type Prompter } from "./first-run.ts";

/** The Prompter on a real terminal. */
export async function clackPrompter(): Promise<Prompter> {
  const p = await import("@clack/prompts");
  const answer = (value: string | symbol): string | Cancelled =>
    p.isCancel(value) || typeof value !== "string" ? CANCELLED : value;
  return {
    intro: (title) => p.intro(title),
    outro: (message) => p.outro(message),
    info: (message) => p.log.info(message),
    warn: (message) => p.log.warn(message),
    select: async (o) =>
      answer(
        await p.select<string>({
          message: o.message,
          options: o.options,
          ...(o.initialValue === undefined ? {} : { initialValue: o.initialValue }),
        }),
      ),
    search: async (o) =>
      answer(
        await p.autocomplete<string>({
          message: o.message,
          maxItems: 12,
          ...(o.placeholder === undefined ? {} : { placeholder: o.placeholder }),
          ...(o.initialValue === undefined ? {} : { initialValue: o.initialValue }),
          options() {
            return o.choices(this.userInput ?? "");
          },
        }),
      ),
    text: async (o) =>
      answer(
        await p.text({
          message: o.message,
          ...(o.placeholder === undefined ? {} : { placeholder: o.placeholder }),
          ...(o.validate === undefined ? {} : { validate: (v) => o.validate?.(v ?? "") }),
        }),
      ),
    password: async (o) =>
      answer(
        await p.password({
          message: o.message,
          mask: "•",
          ...(o.validate === undefined ? {} : { validate: (v) => o.validate?.(v ?? "") }),
        }),
      ),
    spin: async (message, work, done) => {
      let cancel: (value: Cancelled) => void = () => {};
      const cancelled = new Promise<Cancelled>((resolve) => {
        cancel = resolve;
      });
      const spinner = p.spinner({ onCancel: () => cancel(CANCELLED) });
      spinner.start(message);
      try {
        const value = await Promise.race([work(), cancelled]);
        if (value !== CANCELLED) spinner.stop(done(value));
        return value;
      } catch (err) {
        spinner.error(message);
        throw err;
      }
    },
  };
}
