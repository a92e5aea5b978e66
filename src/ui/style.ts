/** Minimal ANSI styling; every function is the identity when colour is off (NO_COLOR, not a TTY). */
export interface Style {
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    const plain = (text: string) => text;
    return { dim: plain, red: plain, green: plain, cyan: plain, bold: plain };
  }
  return { dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), cyan: wrap(36, 39), bold: wrap(1, 22) };
}

export function colorEnabled(isTTY: boolean, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTTY && env.TERM !== "dumb";
}
