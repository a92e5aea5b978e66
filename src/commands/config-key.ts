import { IonError } from "../errors.ts";

/**
 * Reading an API key from the user: the one way `ion providers login ID` and
 * `ion config set providers.ID.api_key -` share, so both accept and refuse the same keys.
 */

/** `given` unless it is absent or `-`; else a masked prompt on a terminal, else the first line of stdin. */
export async function readKey(id: string, given?: string): Promise<string> {
  if (given !== undefined && given !== "-") return given.trim();
  if (process.stdin.isTTY === true) {
    const { isCancel, password } = await import("@clack/prompts");
    const answer = await password({ message: `API key for ${id}`, mask: "•" });
    if (isCancel(answer)) throw new IonError("interrupted", "cancelled: no key saved");
    return answer.trim();
  }
  let text: string;
  try {
    text = await Bun.stdin.text();
  } catch (err) {
    // stdin redirected from something unreadable (`< /`): say where the key was looked for.
    const code = err instanceof Error && "code" in err ? String(err.code) : String(err);
    throw new IonError("io", `cannot read the key for ${id} from stdin (${code})`);
  }
  return (text.split(/\r?\n/, 1)[0] ?? "").trim();
}

/** Refuses an empty key (with `hint` on how to give one) and one with spaces, before anything is saved. */
export function checkKey(id: string, key: string, hint: string): void {
  if (key === "") throw new IonError("usage", `no key given for ${id}`, { hint });
  if (/\s/.test(key))
    throw new IonError("config", "an API key has no spaces or line breaks; nothing saved", {
      hint: "paste only the key itself (not `Bearer …` or `KEY=…`)",
    });
}
